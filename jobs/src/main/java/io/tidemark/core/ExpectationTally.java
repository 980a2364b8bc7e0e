package io.tidemark.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the publish gate makes of the expectations record ({@link ExpectationColumns}), as plain rules: the batches'
 * counts summed per arrival, each arrival judged against its own version's bound, and a held arrival released only by
 * a correction. The engines (Spark's streams that count, the publish check that reads the record) only bring the
 * numbers.
 */
public final class ExpectationTally {
  private ExpectationTally() {}

  /** One arrival's counts of one expectation of one version, summed over the batches that read it. */
  public record Count(String feed, int arrival, String expectation, int version, String kind, String action,
                      String rule, long rows, long violations, TreeSet<String> samples) {
    /** {@code companies arrival 2: tier_in_set (fail, v1) 1 of 3 row(s), e.g. company_id=c9}. */
    public String say() {
      return feed + " arrival " + arrival + ": " + expectation + " (" + action + ", v" + version + ") "
          + (kind.equals("rows") ? rows + " row(s) kept, wanted " + rule.replaceFirst("^rows ", "")
          : violations + " of " + rows + " row(s)" + (kind.equals("condition") ? "" : ", wanted " + rule))
          + (samples.isEmpty() ? "" : ", e.g. " + String.join("; ", samples.stream().limit(2).toList()));
    }
  }

  /** One batch's row of the record, as read. */
  public record Found(String feed, Integer arrival, String expectation, int version, String kind, String action,
                      String rule, long rows, Long violations, List<String> samples) {}

  /**
   * The record's rows summed per feed, arrival, expectation and version (a batch may read several arrivals, an
   * arrival be read by several batches); rows outside the landing layout (no arrival) are left out: no arrival to
   * hold.
   */
  public static List<Count> sum(List<Found> found) {
    Map<String, Count> out = new LinkedHashMap<>();
    for (Found f : found) {
      if (f.arrival() == null) {
        continue;
      }
      String k = f.feed() + "\u0000" + f.arrival() + "\u0000" + f.expectation() + "\u0000" + f.version();
      Count c = out.get(k);
      TreeSet<String> samples = c == null ? new TreeSet<>() : c.samples();
      samples.addAll(f.samples() == null ? List.of() : f.samples());
      long violations = f.violations() == null ? 0 : f.violations();
      out.put(k, c == null ? new Count(f.feed(), f.arrival(), f.expectation(), f.version(), f.kind(), f.action(),
          f.rule(), f.rows(), violations, samples) : new Count(c.feed(), c.arrival(), c.expectation(), c.version(),
          c.kind(), c.action(), c.rule(), c.rows() + f.rows(), c.violations() + violations, samples));
    }
    return new ArrayList<>(out.values());
  }

  /**
   * Whether an arrival's count meets its expectation: a condition with no row failing it; a row count within
   * {@code [min, max]} (a bound left out does not bound); a share of nulls or of dropped rows at most {@code atMost}
   * of the rows looked at (an arrival with no rows has no share, and meets it).
   */
  public static boolean holds(Count c, Long min, Long max, Double atMost) {
    return switch (c.kind()) {
      case "condition" -> c.violations() == 0;
      case "rows" -> (min == null || c.rows() >= min) && (max == null || c.rows() <= max);
      case "nulls", "dropped" -> c.rows() == 0 || c.violations() <= atMost * c.rows() + 1e-9 * c.rows();
      default -> throw new IllegalArgumentException("no kind of expectation: " + c.kind());
    };
  }

  /**
   * The keys an arrival's fail expectations held that no correction released: a correction is a line of the same key
   * that a later arrival of the feed brought and the rules kept ({@code keptLater}: per key, the latest arrival that
   * kept one).
   */
  public static Set<String> unreleased(int arrival, Set<String> held, Map<String, Integer> keptLater) {
    Set<String> out = new TreeSet<>();
    for (String k : held) {
      Integer later = keptLater.get(k);
      if (later == null || later <= arrival) {
        out.add(k);
      }
    }
    return out;
  }

  /**
   * A key as the record and the refusal show it, from its columns' names and values: {@code event_id=17}, {@code
   * order_id=o1, line_no=2} (Spark's {@code Judgement.key} makes the same text from the rows).
   */
  public static String key(List<String> names, List<String> values) {
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      parts.add(names.get(i) + "=" + (values.get(i) == null ? "null" : values.get(i)));
    }
    return String.join(", ", parts);
  }
}
