package io.tidemark.audit;

import io.tidemark.config.TableName;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CompanyChanges;
import io.tidemark.core.CompanyVersion;
import io.tidemark.core.Dimension;
import io.tidemark.core.FeedSchema;
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
 * {@code tidemark check}, the tests) and DuckDB (the few companies a restatement or a publish rebuilt, on the driver)
 * both run.
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

  /** The companies' attributes as the change log declares them (promoted ones too), or the static ones. */
  public static List<Violation> check(SparkSession spark, TableName dimension, Optional<TableName> changeLog) {
    FeedSchema companies = changeLog.map(t -> FeedDeclarations.ofChangeLog(IcebergTables.load(spark, t.sql())))
        .orElse(CompanyChanges.FEED);
    return check(spark.table(dimension.sql()), changeLog.map(t -> spark.table(t.sql())), companies);
  }

  /** Every violation found, by Spark; empty when the table is a correct SCD2 history. */
  public static List<Violation> check(Dataset<Row> dimension, Optional<Dataset<Row>> changes) {
    return check(dimension, changes, CompanyChanges.FEED);
  }

  /** The same, with every attribute of the companies as declared ({@code companies}: promoted ones too). */
  public static List<Violation> check(Dataset<Row> dimension, Optional<Dataset<Row>> changes, FeedSchema companies) {
    SparkSession spark = dimension.sparkSession();
    dimension.createOrReplaceTempView(DIM);
    changes.ifPresent(c -> {
      SparkScd2History.normalize(c, companies).createOrReplaceTempView(LOG);
      SparkScd2History.rebuild(c, companies).createOrReplaceTempView(REBUILT);
    });
    return rules(sql -> spark.sql(sql).collectAsList().stream().map(r -> String.valueOf(r.get(0))).toList(),
        changes.isPresent(), companies);
  }

  /**
   * The same rules, by DuckDB, over versions and changes the driver holds: for an audit of a few companies, an
   * independent engine that answers in milliseconds.
   */
  public static List<Violation> check(Connection duckdb, List<CompanyVersion> versions,
                                      Optional<List<CompanyChange>> changes) throws SQLException {
    return check(duckdb, versions, changes, CompanyChanges.FEED);
  }

  /** The same, the versions and changes holding the promoted attributes of {@code companies}, in order. */
  public static List<Violation> check(Connection duckdb, List<CompanyVersion> versions,
                                      Optional<List<CompanyChange>> changes, FeedSchema companies)
      throws SQLException {
    Schema version = Dimension.version(companies);
    DuckDbRows.create(duckdb, DIM, version, versions.stream().map(CompanyVersion::values).toList());
    if (changes.isPresent()) {
      DuckDbRows.create(duckdb, LOG, companies.columns(),
          changes.get().stream().map(CompanyChange::values).toList());
      DuckDbRows.create(duckdb, REBUILT, version, Scd2History.rebuild(changes.get()).stream()
          .map(CompanyVersion::values).toList());
    }
    return rules(sql -> DuckDbRows.firstColumn(duckdb, sql), changes.isPresent(), companies);
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
  private static List<Violation> rules(Engine engine, boolean withChanges, FeedSchema companies) {
    List<Violation> out = new ArrayList<>();
    try {
      for (Scd2Checks.Rule rule : Scd2Checks.rules(DIM, withChanges ? LOG : null, withChanges ? REBUILT : null,
          companies)) {
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
