package io.tidemark.audit;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.Schemas;
import io.tidemark.stream.Scd2History;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * Checks an SCD2 table: at most one open version per company, is_current exactly on the open one,
 * valid_from before valid_to, versions of a company neither overlapping nor leaving gaps (but where a delete
 * closed the company), no two neighbouring versions alike, and — given the change log — the history equal to
 * the one rebuilt from all changes. The rules are written once, in SQL that Spark (whole tables: {@code tidemark check},
 * the tests) and DuckDB (the few companies a restatement rebuilt, on the driver) both run.
 */
public final class Scd2Invariants {
  private static final int SAMPLE = 5;

  /** One broken rule, with a few companies where it breaks. */
  public record Violation(String check, long count, List<String> examples) {
    @Override
    public String toString() {
      return check + ": " + count + " (e.g. " + String.join("; ", examples) + ")";
    }
  }

  private Scd2Invariants() {}

  public static List<Violation> check(SparkSession spark, TableName dimension, Optional<TableName> changeLog) {
    return check(spark.table(dimension.sql()), changeLog.map(t -> spark.table(t.sql())));
  }

  /** Every violation found, by Spark; empty when the table is a correct SCD2 history. */
  public static List<Violation> check(Dataset<Row> dimension, Optional<Dataset<Row>> changes) {
    SparkSession spark = dimension.sparkSession();
    dimension.createOrReplaceTempView(DIM);
    changes.ifPresent(c -> {
      Scd2History.normalize(c).createOrReplaceTempView(LOG);
      Scd2History.rebuild(c).createOrReplaceTempView(REBUILT);
    });
    return rules(sql -> spark.sql(sql).collectAsList().stream().map(r -> String.valueOf(r.get(0))).toList(),
        changes.isPresent());
  }

  /**
   * The same rules, by DuckDB, over rows the driver holds ({@link Schemas#COMPANY_VERSION} and
   * {@link Schemas#COMPANY_CHANGE}): for an audit of a few companies, an independent engine that answers in
   * milliseconds.
   */
  public static List<Violation> check(Connection duckdb, List<Row> versions, Optional<List<Row>> changes)
      throws SQLException {
    DuckDbRows.create(duckdb, DIM, Schemas.COMPANY_VERSION, versions);
    if (changes.isPresent()) {
      DuckDbRows.create(duckdb, LOG, Schemas.COMPANY_CHANGE, changes.get().stream().map(Scd2Invariants::normalized)
          .toList());
      DuckDbRows.create(duckdb, REBUILT, Schemas.COMPANY_VERSION, Scd2History.rebuildRows(changes.get()));
    }
    return rules(sql -> DuckDbRows.firstColumn(duckdb, sql), changes.isPresent());
  }

  private static final String DIM = "tidemark_check_dim";
  private static final String LOG = "tidemark_check_changes";
  private static final String REBUILT = "tidemark_check_rebuilt";

  /** A query's first column, as strings: what each rule's query returns, one row per violation. */
  @FunctionalInterface
  private interface Engine {
    List<String> query(String sql) throws SQLException;
  }

  /**
   * The rules, in SQL that Spark and DuckDB read alike, over the views {@link #DIM}, {@link #LOG} (normalized
   * changes) and {@link #REBUILT} (the history rebuilt from them).
   */
  private static List<Violation> rules(Engine engine, boolean withChanges) {
    String seq = "(SELECT *, lead(valid_from) OVER w AS next_from, lead(name) OVER w AS next_name, "
        + "lead(tier) OVER w AS next_tier FROM " + DIM + " WINDOW w AS (PARTITION BY company_id ORDER BY valid_from))";
    List<Violation> out = new ArrayList<>();
    try {
      add(engine, out, "more than one open version", "SELECT company_id || ': ' || CAST(count(*) AS STRING) || "
          + "' open' FROM " + DIM + " WHERE valid_to IS NULL GROUP BY company_id HAVING count(*) > 1");
      add(engine, out, "is_current differs from valid_to IS NULL", "SELECT company_id || ' from ' || "
          + str("valid_from") + " FROM " + DIM + " WHERE is_current IS NULL OR is_current <> (valid_to IS NULL)");
      add(engine, out, "valid_from not before valid_to", "SELECT company_id || ' [' || " + str("valid_from")
          + " || ', ' || " + str("valid_to") + " || ')' FROM " + DIM + " WHERE valid_from IS NULL OR valid_to <= "
          + "valid_from");
      add(engine, out, "two versions start at the same time", "SELECT company_id || ' at ' || " + str("valid_from")
          + " FROM " + DIM + " GROUP BY company_id, valid_from HAVING count(*) > 1");
      add(engine, out, "versions overlap", "SELECT company_id || ': ends ' || coalesce(" + str("valid_to")
          + ", 'never') || ', next starts ' || " + str("next_from") + " FROM " + seq + " s WHERE next_from IS NOT "
          + "NULL AND (valid_to IS NULL OR valid_to > next_from)");
      add(engine, out, "neighbouring versions alike", "SELECT company_id || ' at ' || " + str("next_from") + " FROM "
          + seq + " s WHERE valid_to = next_from AND name IS NOT DISTINCT FROM next_name AND tier IS NOT DISTINCT "
          + "FROM next_tier");
      if (withChanges) {
        add(engine, out, "gap between versions without a delete", "SELECT company_id || ': ends ' || "
            + str("valid_to") + " || ', next starts ' || " + str("next_from") + " FROM " + seq + " s WHERE "
            + "next_from > valid_to AND NOT EXISTS (SELECT 1 FROM " + LOG + " c WHERE c.company_id = s.company_id "
            + "AND c.deleted AND c.change_ts = s.valid_to)");
        String cols = Schemas.columnList(Schemas.COMPANY_VERSION);
        add(engine, out, "version not in the history rebuilt from the changes", "SELECT company_id || ' from ' || "
            + str("valid_from") + " FROM (SELECT " + cols + " FROM " + DIM + " EXCEPT SELECT " + cols + " FROM "
            + REBUILT + ") d");
        add(engine, out, "version of the rebuilt history missing", "SELECT company_id || ' from ' || "
            + str("valid_from") + " FROM (SELECT " + cols + " FROM " + REBUILT + " EXCEPT SELECT " + cols + " FROM "
            + DIM + ") d");
      } else {
        add(engine, out, "gap between versions", "SELECT company_id || ': ends ' || " + str("valid_to")
            + " || ', next starts ' || " + str("next_from") + " FROM " + seq + " s WHERE next_from > valid_to");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("the SCD2 checks failed to run: " + e.getMessage(), e);
    }
    return out;
  }

  /** A timestamp as text, alike in both engines ('2026-01-01 01:00:00'). */
  private static String str(String column) {
    return "CAST(" + column + " AS STRING)";
  }

  /** A change as the history reads it: {@code deleted} never null, a delete without attributes. */
  private static Row normalized(Row change) {
    StructType c = Schemas.COMPANY_CHANGE;
    boolean deleted = Boolean.TRUE.equals(change.get(c.fieldIndex("deleted")));
    return RowFactory.create(change.get(c.fieldIndex("company_id")), deleted ? null : change.get(c.fieldIndex("name")),
        deleted ? null : change.get(c.fieldIndex("tier")), change.get(c.fieldIndex("change_ts")), deleted);
  }

  private static void add(Engine engine, List<Violation> out, String check, String sql) throws SQLException {
    List<String> rows = engine.query(sql);
    if (!rows.isEmpty()) {
      out.add(new Violation(check, rows.size(), rows.subList(0, Math.min(SAMPLE, rows.size()))));
    }
  }
}
