package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.when;

import io.tidemark.core.ExpectationColumns;
import io.tidemark.core.Ingest;
import io.tidemark.core.Quarantine;
import io.tidemark.pipeline.Expectation;
import io.tidemark.pipeline.ExpectationVersions;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;

/**
 * What a raw archive's micro-batch found of its feed's expectations, per arrival: the counts are taken in the job that
 * counts what the archive and the quarantine get (one pass over the batch's parsed lines, grouped by arrival), and turned
 * into the rows of the expectations table ({@link ExpectationColumns}), one per arrival and expectation of the version
 * that judged it. The raw archive is the one stream that sees every line, so it is the one that counts; the others
 * only apply the same rule ({@link Judgement}).
 */
final class ExpectationCounts {
  private static final String VALID = "__e_valid";
  private static final String KEPT = "__e_kept";
  private static final String DROPPED = "__e_dropped";
  private static final String INGESTED = "__e_ingested";

  private final Judgement judgement;
  private final String stream;
  private final String feed;

  ExpectationCounts(Judgement judgement, String stream, String feed) {
    this.judgement = judgement;
    this.stream = stream;
    this.feed = feed;
  }

  /** Whether any version has an expectation to count. */
  boolean counts() {
    return judgement.versions().versions().stream().anyMatch(v -> !v.rules().isEmpty());
  }

  /**
   * The aggregates over a batch's parsed lines ({@link LineFormat#parse}, with the judged reason and the ingest time),
   * grouped by arrival, that {@link #rows} reads.
   */
  List<Column> aggregates() {
    Column valid = col(LineFormat.VALID);
    Column reason = col(Quarantine.REASON.name());
    List<Column> out = new ArrayList<>();
    out.add(count(when(valid, lit(1))).as(VALID));
    out.add(count(when(reason.isNull(), lit(1))).as(KEPT));
    out.add(count(when(valid.and(reason.isNotNull()).and(reason.endsWith(" (" + Expectation.Action.DROP.word() + ")")),
        lit(1))).as(DROPPED));
    out.add(max(col(Ingest.INGEST_TS.name())).as(INGESTED));
    Column key = judgement.key();
    judgement.rowExpectations().forEach((v, rules) -> {
      for (int i = 0; i < rules.size(); i++) {
        Column fails = valid.and(judgement.fails(v, rules.get(i)));
        out.add(count(when(fails, lit(1))).as(failed(v, i)));
        out.add(min(when(fails, key)).as(failed(v, i) + "_lo"));
        out.add(max(when(fails, key)).as(failed(v, i) + "_hi"));
      }
    });
    for (String column : nullColumns()) {
      out.add(count(when(reason.isNull().and(col(column).isNull()), lit(1))).as(nulls(column)));
    }
    return out;
  }

  /** The record's rows from the aggregates' rows (one per arrival of the batch). */
  List<List<Object>> rows(long batchId, List<Row> perArrival) {
    List<List<Object>> out = new ArrayList<>();
    for (Row r : perArrival) {
      Integer arrival = r.isNullAt(r.fieldIndex(Ingest.ARRIVAL.name())) ? null
          : r.getInt(r.fieldIndex(Ingest.ARRIVAL.name()));
      ExpectationVersions.Version v = judgement.versions().of(arrival);
      long valid = r.getLong(r.fieldIndex(VALID));
      long kept = r.getLong(r.fieldIndex(KEPT));
      Timestamp ts = r.getAs(INGESTED);
      Instant ingested = ts == null ? null : ts.toInstant();
      List<Expectation> rows = judgement.rowExpectations().getOrDefault(v, List.of());
      for (Expectation e : v.rules()) {
        Long rowsIn;
        Long violations;
        List<String> samples = List.of();
        switch (e.kind()) {
          case ROW -> {
            String f = failed(v, rows.indexOf(e));
            rowsIn = valid;
            violations = r.getLong(r.fieldIndex(f));
            samples = samples(r.getAs(f + "_lo"), r.getAs(f + "_hi"));
          }
          case ROWS -> {
            rowsIn = kept;
            violations = null;
          }
          case NULLS -> {
            rowsIn = kept;
            violations = r.getLong(r.fieldIndex(nulls(e.column())));
          }
          case DROPPED -> {
            rowsIn = valid;
            violations = r.getLong(r.fieldIndex(DROPPED));
          }
          default -> throw new IllegalStateException(e.kind().toString());
        }
        out.add(Arrays.asList(stream, feed, batchId, arrival, e.name(), e.kind().field(), e.action().word(),
            v.number(), e.rule(), rowsIn, violations, samples, ingested));
      }
    }
    return out;
  }

  private static List<String> samples(String lo, String hi) {
    List<String> out = new ArrayList<>();
    if (lo != null) {
      out.add(lo);
    }
    if (hi != null && !hi.equals(lo)) {
      out.add(hi);
    }
    return out;
  }

  /** The columns some version's nulls expectations look at. */
  private List<String> nullColumns() {
    Map<String, Boolean> out = new LinkedHashMap<>();
    for (ExpectationVersions.Version v : judgement.versions().versions()) {
      for (Expectation e : v.rules()) {
        if (e.kind() == Expectation.Kind.NULLS) {
          out.put(e.column(), true);
        }
      }
    }
    return List.copyOf(out.keySet());
  }

  private static String failed(ExpectationVersions.Version v, int i) {
    return "__e_v" + v.number() + "_" + i;
  }

  private static String nulls(String column) {
    return "__e_null_" + column;
  }
}
