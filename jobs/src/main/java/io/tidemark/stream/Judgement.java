package io.tidemark.stream;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import io.tidemark.core.FeedSchema;
import io.tidemark.core.Ingest;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.pipeline.Conditions;
import io.tidemark.pipeline.Expectation;
import io.tidemark.pipeline.ExpectationVersions;
import io.tidemark.pipeline.Feed;
import io.tidemark.pipeline.Pipeline;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * How every stream of a feed judges a valid line by its row expectations: the one rule, which the raw archive (that
 * quarantines what it drops and holds), the dedup, the aggregates and the SCD2 stream (that skip it) all apply, so a
 * line dropped or held is in none of their tables. A line is judged by the version of the feed's expectations that
 * judges its arrival ({@link ExpectationVersions}); it fails a condition when the condition is false (null, like a SQL
 * CHECK constraint, passes). A line that fails a {@code fail} expectation is held, whatever else it fails; else one
 * that fails a {@code drop} expectation is dropped; the first in the file's order names the reason.
 */
public final class Judgement {
  private static final Judgement NONE = new Judgement(ExpectationVersions.empty(), List.of(), Map.of());

  private final ExpectationVersions versions;
  /** What names a line ({@link Feed#identity}): its sample keys. */
  private final List<io.tidemark.core.Column> identity;
  /** Per version that has row expectations, its row expectations' conditions as Spark's columns, in order. */
  private final Map<ExpectationVersions.Version, Map<Expectation, Column>> conditions;

  private Judgement(ExpectationVersions versions, List<io.tidemark.core.Column> identity,
                    Map<ExpectationVersions.Version, Map<Expectation, Column>> conditions) {
    this.versions = versions;
    this.identity = List.copyOf(identity);
    this.conditions = conditions;
  }

  /** Nothing judged: every valid line flows on. */
  public static Judgement none() {
    return NONE;
  }

  /**
   * The feed's row expectations as {@code versions} keep them, over the feed as declared when the run starts
   * ({@code feed}: promoted fields too); {@code identity} names a line ({@link Feed#identity}).
   */
  public static Judgement of(ExpectationVersions versions, FeedSchema feed, List<io.tidemark.core.Column> identity) {
    Map<ExpectationVersions.Version, Map<Expectation, Column>> out = new LinkedHashMap<>();
    for (ExpectationVersions.Version v : versions.versions()) {
      Map<Expectation, Column> rows = new LinkedHashMap<>();
      for (Expectation e : v.rows()) {
        rows.put(e, new Column(Conditions.parse(e, feed.columns())));
      }
      if (!rows.isEmpty()) {
        out.put(v, rows);
      }
    }
    return new Judgement(versions, identity, out);
  }

  public ExpectationVersions versions() {
    return versions;
  }

  /** Whether any line can fail a row expectation. */
  public boolean judges() {
    return !conditions.isEmpty();
  }

  /** Whether a line's arrival decides which version judges it (the rows must carry {@link Ingest#ARRIVAL}). */
  public boolean readsArrival() {
    return judges() && (versions.versions().size() > 1 || versions.versions().get(0).fromArrival() > 1);
  }

  /** Whether a condition reads the time the line landed (the rows must carry {@link Conditions#LANDED_AT}). */
  public boolean readsLandingTime() {
    return conditions.values().stream().flatMap(m -> m.keySet().stream()).anyMatch(Conditions::readsNow);
  }

  /** Whether the version {@code v} judges the row (by its arrival, where versions differ). */
  private Column judgedBy(ExpectationVersions.Version v) {
    if (!readsArrival()) {
      return lit(true);
    }
    Column arrival = col(Ingest.ARRIVAL.name());
    int next = Integer.MAX_VALUE;
    for (ExpectationVersions.Version w : versions.versions()) {
      if (w.fromArrival() > v.fromArrival()) {
        next = Math.min(next, w.fromArrival());
      }
    }
    Column from = arrival.geq(v.fromArrival());
    Column in = next == Integer.MAX_VALUE ? from : from.and(arrival.lt(next));
    // a line outside the landing layout has no arrival: the newest version judges it
    return v.equals(versions.latest()) ? arrival.isNull().or(in) : coalesce(in, lit(false));
  }

  /** Whether the row fails the expectation of version {@code v}: its condition is false (null passes). */
  public Column fails(ExpectationVersions.Version v, Expectation e) {
    return judgedBy(v).and(coalesce(conditions.get(v).get(e).equalTo(lit(false)), lit(false)));
  }

  /** Why a valid row is quarantined, {@code expectation <name> (fail|drop)}, or null when it flows on. */
  public Column reason() {
    if (!judges()) {
      return lit(null).cast(DataTypes.StringType);
    }
    Column reason = null;
    for (Expectation.Action action : List.of(Expectation.Action.FAIL, Expectation.Action.DROP)) {
      for (Map.Entry<ExpectationVersions.Version, Map<Expectation, Column>> v : conditions.entrySet()) {
        for (Expectation e : v.getValue().keySet()) {
          if (e.action() == action) {
            Column fails = fails(v.getKey(), e);
            reason = reason == null ? when(fails, lit(e.reason())) : reason.when(fails, lit(e.reason()));
          }
        }
      }
    }
    return reason == null ? lit(null).cast(DataTypes.StringType) : reason;
  }

  /** The rows that flow on: {@code rows} (valid, with the columns this judgement reads) without those quarantined. */
  public Dataset<Row> kept(Dataset<Row> rows) {
    return judges() ? rows.where(reason().isNull()) : rows;
  }

  /**
   * What names a row as the record and messages show it: {@code event_id=17}, {@code order_id=o1, line_no=2}, {@code
   * company_id=c9, change_ts=2026-01-01 00:00:00}.
   */
  public Column key() {
    return key(identity);
  }

  /** The same for any columns. */
  public static Column key(List<io.tidemark.core.Column> identity) {
    List<Column> parts = new ArrayList<>();
    for (io.tidemark.core.Column k : identity) {
      parts.add(concat(lit(k.name() + "="), coalesce(col(k.name()).cast(DataTypes.StringType), lit("null"))));
    }
    return concat_ws(", ", parts.toArray(Column[]::new));
  }

  /** The row expectations of each version, in order (for counting). */
  public Map<ExpectationVersions.Version, List<Expectation>> rowExpectations() {
    Map<ExpectationVersions.Version, List<Expectation>> out = new LinkedHashMap<>();
    conditions.forEach((v, m) -> out.put(v, List.copyOf(m.keySet())));
    return Collections.unmodifiableMap(out);
  }

  /**
   * Every row condition of the pipeline checked by Spark's analyzer over its feed's columns (as the file declares
   * them), before any stream starts: what the parser alone cannot tell (an unknown function, a function given the
   * wrong types, a condition that is not a boolean, an aggregate) is one line naming the expectation. No job runs.
   */
  public static void check(SparkSession spark, Pipeline p) {
    for (Feed f : p.feeds()) {
      List<Expectation> rows = f.expectations().stream().filter(Expectation::isRow).toList();
      if (rows.isEmpty()) {
        continue;
      }
      StructType schema = SparkRows.struct(f.schema().columns()).add(Conditions.LANDED_AT, DataTypes.TimestampType)
          .add(Ingest.ARRIVAL.name(), DataTypes.IntegerType);
      Dataset<Row> empty = spark.createDataFrame(List.of(), schema);
      for (Expectation e : rows) {
        Column c = new Column(Conditions.parse(e, f.schema().columns()));
        org.apache.spark.sql.types.DataType type;
        boolean deterministic;
        try {
          Dataset<Row> judged = empty.select(c.as("judged"));
          type = judged.schema().fields()[0].dataType();
          deterministic = judged.queryExecution().analyzed().expressions().forall(x -> x.deterministic());
        } catch (Exception x) {
          // Scala throws AnalysisException (checked in Java's eyes) without declaring it
          if (!(x instanceof org.apache.spark.sql.AnalysisException a)) {
            throw x;
          }
          throw Conditions.bad(e, "not right over the columns of " + f.name() + ": " + oneLine(a));
        }
        if (!type.equals(DataTypes.BooleanType)) {
          throw Conditions.bad(e, "'" + e.condition() + "' is " + type.simpleString() + ", not a boolean (true: the "
              + "row meets it)");
        }
        if (!deterministic) {
          throw Conditions.bad(e, "'" + e.condition() + "' is not deterministic: every stream judges a line on its "
              + "own and must judge it alike");
        }
      }
    }
  }

  private static String oneLine(org.apache.spark.sql.AnalysisException a) {
    String m = a.getSimpleMessage() == null ? String.valueOf(a.getMessage()) : a.getSimpleMessage();
    String first = m.strip().split("\n")[0];
    return first.replaceAll(";$", "");
  }
}
