package io.tidemark.publish;

import io.tidemark.audit.AuditCheck;
import io.tidemark.config.TableName;
import io.tidemark.core.ExpectationColumns;
import io.tidemark.core.ExpectationTally;
import io.tidemark.core.Ingest;
import io.tidemark.core.JsonMembers;
import io.tidemark.core.KeyText;
import io.tidemark.core.Quarantine;
import io.tidemark.pipeline.Expectation;
import io.tidemark.pipeline.ExpectationVersions;
import io.tidemark.pipeline.Feed;
import io.tidemark.pipeline.Pipeline;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.data.Record;

/**
 * The feeds' expectations, as the versions that judged each arrival declare them (recorded in the raw archive at the
 * staged commit, never today's file): an arrival whose {@code fail} expectation failed is held off the published
 * branch, naming the expectation, the count and a sample key, until a correction lands; a {@code warn} that failed is
 * said and lets it pass. A row expectation fails when a row failed its condition; its held lines (in the quarantine)
 * are released when a later arrival of the feed brings a kept line of each of their keys. An arrival's bound (rows,
 * nulls, dropped) is released when a later arrival of the feed meets it. The counts are the record's, which the raw
 * archive wrote with the batches it judged ({@link ExpectationColumns}); only the held keys are read from the
 * quarantine, so the check's cost follows the arrival.
 */
final class ExpectationsMet extends ArrivalCheck {
  static final String NAME = "expectations";

  ExpectationsMet() {
    super(NAME);
  }

  @Override
  AuditCheck run(Staged staged, CheckReads reads) {
    Pipeline p = reads.pipeline();
    TableName record = p.shared().expectations();
    List<ExpectationTally.Found> found = new ArrayList<>();
    for (Record r : CheckReads.appended(staged, record, ExpectationColumns.SCHEMA.names())) {
      @SuppressWarnings("unchecked")
      List<String> samples = (List<String>) r.getField(ExpectationColumns.SAMPLE_KEYS.name());
      found.add(new ExpectationTally.Found((String) r.getField(ExpectationColumns.FEED.name()),
          (Integer) r.getField(ExpectationColumns.ARRIVAL.name()), (String) r.getField(
          ExpectationColumns.EXPECTATION.name()), (Integer) r.getField(ExpectationColumns.VERSION.name()),
          (String) r.getField(ExpectationColumns.KIND.name()), (String) r.getField(ExpectationColumns.ACTION.name()),
          (String) r.getField(ExpectationColumns.RULE.name()), (Long) r.getField(ExpectationColumns.ROWS.name()),
          (Long) r.getField(ExpectationColumns.VIOLATIONS.name()), samples));
    }
    List<ExpectationTally.Count> counts = ExpectationTally.sum(found);
    if (counts.isEmpty()) {
      return AuditCheck.of(NAME, record.toString(), List.of(), "no arrival staged was judged by an expectation");
    }
    Map<String, ExpectationVersions> versions = new HashMap<>();
    List<String> held = new ArrayList<>();
    List<String> warned = new ArrayList<>();
    List<String> dropped = new ArrayList<>();
    Set<String> arrivals = new TreeSet<>();
    for (ExpectationTally.Count c : counts) {
      arrivals.add(c.feed() + " " + c.arrival());
      Feed feed = p.feed(c.feed());
      Expectation e = feed == null ? null : rule(versions.computeIfAbsent(c.feed(), f -> recorded(staged, feed)), c);
      boolean holds = e == null ? c.violations() == 0
          : ExpectationTally.holds(c, e.min(), e.max(), e.atMost());
      if (holds) {
        continue;
      }
      if (Expectation.Action.DROP.word().equals(c.action())) {
        dropped.add(c.say());
        continue;
      }
      if (!Expectation.Action.FAIL.word().equals(c.action())) {
        warned.add(c.say());
        continue;
      }
      if (released(staged, p, feed, c, counts, versions.get(c.feed()))) {
        warned.add(c.say() + ", released by a later arrival's correction");
        continue;
      }
      held.add(c.say() + "; held off " + reads.config().publishedRef() + " until a correction lands");
    }
    return AuditCheck.of(NAME, record.toString(), held, counts.size() + " count(s) of " + arrivals.size()
        + " feed arrival(s) met their fail expectations" + listed("warned", warned) + listed("dropped", dropped));
  }

  /** {@code ; warned: a; b}: the first five, and how many more. */
  private static String listed(String what, List<String> items) {
    return items.isEmpty() ? "" : "; " + what + ": " + String.join("; ", items.subList(0, Math.min(5, items.size())))
        + (items.size() > 5 ? "; and " + (items.size() - 5) + " more" : "");
  }

  /** The versions the feed's raw archive recorded, as staged. */
  private static ExpectationVersions recorded(Staged staged, Feed feed) {
    TableName raw = feed.raw().table();
    return ExpectationVersions.parse(staged.table(raw).properties().get(ExpectationVersions.PROPERTY),
        raw.toString());
  }

  /** The expectation of the version that judged the count, or null when the record names one no version has. */
  private static Expectation rule(ExpectationVersions versions, ExpectationTally.Count c) {
    for (ExpectationVersions.Version v : versions.versions()) {
      if (v.number() == c.version()) {
        return v.rules().stream().filter(e -> e.name().equals(c.expectation())).findFirst().orElse(null);
      }
    }
    return null;
  }

  /**
   * Whether a correction released the held arrival: each key a row expectation held came again in a later arrival,
   * kept; a later arrival of the feed met the bound an arrival expectation set.
   */
  private static boolean released(Staged staged, Pipeline p, Feed feed, ExpectationTally.Count c,
                                  List<ExpectationTally.Count> counts, ExpectationVersions versions) {
    if (feed == null) {
      return false;
    }
    if (!c.kind().equals(Expectation.Kind.ROW.field())) {
      return counts.stream().anyMatch(o -> o.feed().equals(c.feed()) && o.expectation().equals(c.expectation())
          && o.arrival() > c.arrival() && ExpectationTally.holds(o, bound(versions, o).min(), bound(versions, o).max(),
          bound(versions, o).atMost()));
    }
    List<io.tidemark.core.Column> keyColumns = feed.schema().key();
    List<String> key = keyColumns.stream().map(io.tidemark.core.Column::name).toList();
    Set<String> heldKeys = new LinkedHashSet<>();
    String reason = Expectation.reason(c.expectation(), Expectation.Action.FAIL);
    for (Record r : CheckReads.appended(staged, p.shared().rejected(), List.of(Quarantine.DATASET.name(),
        Quarantine.REASON.name(), Quarantine.LINE.name(), Ingest.ARRIVAL.name()))) {
      if (feed.name().equals(r.getField(Quarantine.DATASET.name())) && reason.equals(r.getField(
          Quarantine.REASON.name())) && Integer.valueOf(c.arrival()).equals(r.getField(Ingest.ARRIVAL.name()))) {
        Map<String, JsonMembers.Member> m = JsonMembers.of((String) r.getField(Quarantine.LINE.name()));
        heldKeys.add(ExpectationTally.key(key, keyColumns.stream().map(k -> m == null || m.get(k.name()) == null
            ? null : KeyText.ofLine(k.type(), JsonMembers.display(m.get(k.name())))).toList()));
      }
    }
    Map<String, Integer> keptLater = new HashMap<>();
    List<String> columns = new ArrayList<>(key);
    columns.add(Ingest.ARRIVAL.name());
    for (Record r : CheckReads.appended(staged, feed.raw().table(), columns)) {
      Integer a = (Integer) r.getField(Ingest.ARRIVAL.name());
      if (a != null && a > c.arrival()) {
        keptLater.merge(ExpectationTally.key(key, keyColumns.stream().map(k -> KeyText.ofTable(k.type(),
            r.getField(k.name()))).toList()), a, Math::max);
      }
    }
    return !heldKeys.isEmpty() && ExpectationTally.unreleased(c.arrival(), heldKeys, keptLater).isEmpty();
  }

  private static Expectation bound(ExpectationVersions versions, ExpectationTally.Count c) {
    Expectation e = rule(versions, c);
    return e != null ? e : new Expectation(c.expectation(), Expectation.Kind.ofField(c.kind()),
        Expectation.Action.WARN, null, null, null, null, 1.0, null);
  }

}
