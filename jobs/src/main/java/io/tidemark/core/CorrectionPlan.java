package io.tidemark.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plan's corrections as rows of the restatement plan table ({@link RestatementRecords#PLAN}), one per correction,
 * each of one kind, and back: what will be corrected is decided once, kept where a person can read it before anything
 * is written, and read back by the stages that write and audit it. Keys and values are JSON objects of the values'
 * text ({@link ValuesJson}), read back in the types of the pipeline's shapes as the restatement's branch declares
 * them ({@link Shapes}: fields promoted into a feed included):
 * <ul>
 *   <li>{@value #WINDOW}: the key is the window's group and start, the old value the measures a row of the table held
 *       (null when the stream never wrote the window), the new value the measures the raw archive gives;</li>
 *   <li>{@value #RECORD}: the key is the record's key, the new value its first occurrence (every column), old rows
 *       how many rows the deduplicated table held for the key;</li>
 *   <li>{@value #CHANGE}: the key is the change's key and time, the new value its row of the change log.</li>
 * </ul>
 */
public final class CorrectionPlan {
  public static final String WINDOW = "window";
  public static final String RECORD = "record";
  public static final String CHANGE = "change";

  private CorrectionPlan() {}

  /** The rows of an attempt's corrections, each in the order of the plan's columns. */
  public static List<List<Object>> rows(CorrectionSet c, String runId, String branch, int attempt, Shapes shapes) {
    List<List<Object>> rows = new ArrayList<>();
    for (CorrectionSet.WindowFix w : c.windows()) {
      Aggregation a = shapes.aggregation(w.aggregate());
      List<Column> measures = a.measures().stream().map(Measure::column).toList();
      rows.add(Arrays.asList(runId, branch, attempt, WINDOW, w.aggregate(), windowKey(a, w.key()),
          w.old() == null ? null : ValuesJson.of(measures, w.old()), ValuesJson.of(measures, w.fresh()), null));
    }
    for (CorrectionSet.RecordFix r : c.records()) {
      FeedSchema f = shapes.fact(r.feed());
      rows.add(Arrays.asList(runId, branch, attempt, RECORD, r.feed(), ValuesJson.of(f.key(), r.key()), null,
          ValuesJson.of(f.columns().columns(), r.first()), r.oldRows()));
    }
    for (CorrectionSet.ChangeFix ch : c.changes()) {
      DimensionSchema d = shapes.dimension(ch.dimension());
      List<Column> key = new ArrayList<>(d.key());
      key.add(d.changeTime());
      List<Object> keyValues = new ArrayList<>(ch.change().key());
      keyValues.add(ch.change().at());
      rows.add(Arrays.asList(runId, branch, attempt, CHANGE, ch.dimension(), ValuesJson.of(key, keyValues), null,
          ValuesJson.of(d.logged().columns(), d.logRow(ch.change())), null));
    }
    return rows;
  }

  private static String windowKey(Aggregation a, Aggregation.Key k) {
    List<Column> columns = new ArrayList<>(a.groupBy());
    columns.add(a.windowStart());
    return ValuesJson.of(columns, k.values());
  }

  /** The corrections of rows read back (of one run and attempt), in a stable order whatever order they came in. */
  public static CorrectionSet read(Iterable<Fields> rows, Shapes shapes) {
    List<CorrectionSet.WindowFix> windows = new ArrayList<>();
    List<CorrectionSet.RecordFix> records = new ArrayList<>();
    List<CorrectionSet.ChangeFix> changes = new ArrayList<>();
    for (Fields r : rows) {
      String kind = r.string(RestatementRecords.KIND);
      String target = r.string(RestatementRecords.TARGET);
      switch (kind) {
        case WINDOW -> {
          Aggregation a = shapes.aggregation(target);
          List<Column> columns = new ArrayList<>(a.groupBy());
          columns.add(a.windowStart());
          Fields key = ValuesJson.read(columns, r.string(RestatementRecords.KEY));
          List<Column> measures = a.measures().stream().map(Measure::column).toList();
          String old = r.string(RestatementRecords.OLD_VALUE);
          windows.add(new CorrectionSet.WindowFix(target, key.values(a.groupBy()), key.instant(a.windowStart()),
              old == null ? null : ValuesJson.read(measures, old).values(measures),
              ValuesJson.read(measures, r.string(RestatementRecords.NEW_VALUE)).values(measures)));
        }
        case RECORD -> {
          FeedSchema f = shapes.fact(target);
          Fields first = ValuesJson.read(f.columns().columns(), r.string(RestatementRecords.NEW_VALUE));
          records.add(new CorrectionSet.RecordFix(target, first.values(f.key()),
              first.values(f.columns().columns()), r.bigint(RestatementRecords.OLD_ROWS)));
        }
        case CHANGE -> {
          DimensionSchema d = shapes.dimension(target);
          changes.add(new CorrectionSet.ChangeFix(target, d.change(ValuesJson.read(d.logged().columns(),
              r.string(RestatementRecords.NEW_VALUE)))));
        }
        default -> throw new IllegalStateException("unknown correction kind " + kind);
      }
    }
    return new CorrectionSet(windows, records, changes);
  }
}
