package io.tidemark.audit;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.Schemas;
import io.tidemark.stream.Scd2History;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Checks an SCD2 table: at most one open version per company, is_current exactly on the open one,
 * valid_from before valid_to, versions of a company neither overlapping nor leaving gaps (but where a delete
 * closed the company), no two neighbouring versions alike, and — given the change log — the history equal to
 * the one rebuilt from all changes. Used by the tests and by the restatement's audit.
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

  /** Every violation found; empty when the table is a correct SCD2 history. */
  public static List<Violation> check(Dataset<Row> dimension, Optional<Dataset<Row>> changes) {
    SparkSession spark = dimension.sparkSession();
    String dim = "tidemark_check_dim";
    dimension.createOrReplaceTempView(dim);
    String seq = "(SELECT *, lead(valid_from) OVER w AS next_from, lead(name) OVER w AS next_name, "
        + "lead(tier) OVER w AS next_tier FROM " + dim + " WINDOW w AS (PARTITION BY company_id ORDER BY valid_from))";
    List<Violation> out = new ArrayList<>();
    add(spark, out, "more than one open version", "SELECT company_id || ': ' || count(*) || ' open' FROM " + dim
        + " WHERE valid_to IS NULL GROUP BY company_id HAVING count(*) > 1");
    add(spark, out, "is_current differs from valid_to IS NULL", "SELECT company_id || ' from ' || valid_from FROM "
        + dim + " WHERE is_current IS NULL OR is_current <> (valid_to IS NULL)");
    add(spark, out, "valid_from not before valid_to", "SELECT company_id || ' [' || valid_from || ', ' || valid_to "
        + "|| ')' FROM " + dim + " WHERE valid_from IS NULL OR valid_to <= valid_from");
    add(spark, out, "two versions start at the same time", "SELECT company_id || ' at ' || valid_from FROM " + dim
        + " GROUP BY company_id, valid_from HAVING count(*) > 1");
    add(spark, out, "versions overlap", "SELECT company_id || ': ends ' || coalesce(CAST(valid_to AS STRING), 'never') "
        + "|| ', next starts ' || next_from FROM " + seq + " WHERE next_from IS NOT NULL "
        + "AND (valid_to IS NULL OR valid_to > next_from)");
    add(spark, out, "neighbouring versions alike", "SELECT company_id || ' at ' || next_from FROM " + seq
        + " WHERE valid_to = next_from AND name <=> next_name AND tier <=> next_tier");
    if (changes.isPresent()) {
      String log = "tidemark_check_changes";
      Scd2History.normalize(changes.get()).createOrReplaceTempView(log);
      add(spark, out, "gap between versions without a delete", "SELECT company_id || ': ends ' || valid_to "
          + "|| ', next starts ' || next_from FROM " + seq + " s WHERE next_from > valid_to AND NOT EXISTS "
          + "(SELECT 1 FROM " + log + " c WHERE c.company_id = s.company_id AND c.deleted AND c.change_ts = s.valid_to)");
      String rebuilt = "tidemark_check_rebuilt";
      Scd2History.rebuild(changes.get()).createOrReplaceTempView(rebuilt);
      String cols = Schemas.columnList(Schemas.COMPANY_VERSION);
      add(spark, out, "version not in the history rebuilt from the changes", "SELECT company_id || ' from ' || "
          + "valid_from FROM (SELECT " + cols + " FROM " + dim + " EXCEPT SELECT " + cols + " FROM " + rebuilt + ")");
      add(spark, out, "version of the rebuilt history missing", "SELECT company_id || ' from ' || valid_from FROM "
          + "(SELECT " + cols + " FROM " + rebuilt + " EXCEPT SELECT " + cols + " FROM " + dim + ")");
    } else {
      add(spark, out, "gap between versions", "SELECT company_id || ': ends ' || valid_to || ', next starts ' "
          + "|| next_from FROM " + seq + " WHERE next_from > valid_to");
    }
    return out;
  }

  private static void add(SparkSession spark, List<Violation> out, String check, String sql) {
    List<Row> rows = spark.sql(sql).collectAsList();
    if (!rows.isEmpty()) {
      List<String> examples = new ArrayList<>();
      for (int i = 0; i < Math.min(SAMPLE, rows.size()); i++) {
        examples.add(String.valueOf(rows.get(i).get(0)));
      }
      out.add(new Violation(check, rows.size(), examples));
    }
  }
}
