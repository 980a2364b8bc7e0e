package io.tidemark.audit;

import io.tidemark.config.TableName;
import io.tidemark.core.Change;
import io.tidemark.core.Version;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.Schema;
import io.tidemark.core.Scd2Checks;
import io.tidemark.core.Scd2History;
import io.tidemark.lakehouse.tables.FeedDeclarations;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.stream.SparkScd2History;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Checks an SCD2 table by the core's rules ({@link Scd2Checks}), written once in SQL that Spark (whole tables:
 * {@code tidemark check}, the tests) and DuckDB (the few keys a restatement or a publish rebuilt, on the driver)
 * both run.
 */
public final class Scd2Invariants {
  private static final int SAMPLE = 5;

  /** One broken rule, with a few keys where it breaks. */
  public record Violation(String check, long count, List<String> examples) {
    @Override
    public String toString() {
      return check + ": " + count + " (e.g. " + String.join("; ", examples) + ")";
    }
  }

  private Scd2Invariants() {}

  /** Every violation found by Spark in a dimension's table, with its change log when one is given. */
  public static List<Violation> check(SparkSession spark, TableName dimension, Optional<TableName> changeLog,
                                      DimensionSchema d) {
    DimensionSchema declared = changeLog.map(t -> FeedDeclarations.of(IcebergTables.load(spark, t.sql()), d))
        .orElse(d);
    return check(spark.table(dimension.sql()), changeLog.map(t -> spark.table(t.sql())), declared);
  }

  /**
   * Every violation found, by Spark; empty when the table is a correct SCD2 history of the dimension as declared
   * ({@code d}: promoted attributes too).
   */
  public static List<Violation> check(Dataset<Row> dimension, Optional<Dataset<Row>> changes, DimensionSchema d) {
    SparkSession spark = dimension.sparkSession();
    dimension.createOrReplaceTempView(DIM);
    changes.ifPresent(c -> {
      List<org.apache.spark.sql.Column> normalized = new java.util.ArrayList<>();
      d.key().forEach(k -> normalized.add(org.apache.spark.sql.functions.col(k.name())));
      normalized.add(org.apache.spark.sql.functions.col(d.changeTime().name()));
      normalized.add(SparkScd2History.isDelete(d).as(Scd2Checks.DELETED));
      c.select(normalized.toArray(new org.apache.spark.sql.Column[0])).createOrReplaceTempView(LOG);
      SparkScd2History.rebuild(c, d).createOrReplaceTempView(REBUILT);
    });
    return rules(sql -> spark.sql(sql).collectAsList().stream().map(r -> String.valueOf(r.get(0))).toList(),
        changes.isPresent(), d);
  }

  /**
   * The same rules, by DuckDB, over versions and changes the driver holds: for an audit of a few keys, an independent
   * engine that answers in milliseconds.
   */
  public static List<Violation> check(Connection duckdb, List<Version> versions, Optional<List<Change>> changes,
                                      DimensionSchema d) throws SQLException {
    Schema version = d.version();
    DuckDbRows.create(duckdb, DIM, version, versions.stream().map(Version::values).toList());
    if (changes.isPresent()) {
      DuckDbRows.create(duckdb, LOG, Scd2Checks.changesSchema(d),
          changes.get().stream().map(Scd2Checks::changeRow).toList());
      DuckDbRows.create(duckdb, REBUILT, version, Scd2History.rebuild(changes.get()).stream()
          .map(Version::values).toList());
    }
    return rules(sql -> DuckDbRows.firstColumn(duckdb, sql), changes.isPresent(), d);
  }

  private static final String DIM = "tidemark_check_dim";
  private static final String LOG = "tidemark_check_changes";
  private static final String REBUILT = "tidemark_check_rebuilt";

  /** A query's first column, as strings: what each rule's query returns, one row per violation. */
  @FunctionalInterface
  private interface Engine {
    List<String> query(String sql) throws SQLException;
  }

  /** The core's rules ({@link Scd2Checks}) over the views {@link #DIM}, {@link #LOG} and {@link #REBUILT}. */
  private static List<Violation> rules(Engine engine, boolean withChanges, DimensionSchema d) {
    List<Violation> out = new ArrayList<>();
    try {
      for (Scd2Checks.Rule rule : Scd2Checks.rules(DIM, withChanges ? LOG : null, withChanges ? REBUILT : null,
          d)) {
        add(engine, out, rule.name(), rule.sql());
      }
    } catch (SQLException e) {
      throw new IllegalStateException("the SCD2 checks failed to run: " + e.getMessage(), e);
    }
    return out;
  }

  private static void add(Engine engine, List<Violation> out, String check, String sql) throws SQLException {
    List<String> rows = engine.query(sql);
    if (!rows.isEmpty()) {
      out.add(new Violation(check, rows.size(), rows.subList(0, Math.min(SAMPLE, rows.size()))));
    }
  }
}
