package io.tidemark.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.services.Endpoints;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * The tables of a tidemark home with services of its own (a test's own Nessie and S3 server), read and written from
 * the test JVM's Spark: a session of the suite's (sharing its SparkContext) with a catalog {@value #CATALOG} on that
 * home's Nessie and S3 server, as tidemark's own catalog is set up there. A test writes with it what a person or
 * another engine would write by hand, and compares the home's tables with a pipeline's of the shared stack.
 */
public final class OtherHome {
  public static final String CATALOG = "home";
  private final SparkSession spark;

  /** {@code config}: the home's (its staging branch is where a writer's commits go); {@code endpoints}: its services'. */
  public OtherHome(SparkSession base, TidemarkConfig config, Endpoints endpoints) {
    spark = base.newSession();
    String ours = "spark.sql.catalog." + SparkSessions.CATALOG;
    for (Map.Entry<String, String> c : SparkSessions.conf(config.writing(), endpoints).entrySet()) {
      if (c.getKey().equals(ours) || c.getKey().startsWith(ours + ".")) {
        spark.conf().set("spark.sql.catalog." + CATALOG + c.getKey().substring(ours.length()), c.getValue());
      }
    }
  }

  public SparkSession spark() {
    return spark;
  }

  /** The table on a reference of the home: {@code home.facts.`events@main`}. */
  public String at(TableName table, String ref) {
    return CATALOG + "." + table.sqlAt(ref);
  }

  /**
   * The two tables hold the same rows, but for when and in which batch they were taken in and the bucket in the
   * address of the file they came from (each pipeline lands in its own).
   */
  public static void assertSameRows(String what, Dataset<Row> a, Dataset<Row> b) {
    Dataset<Row> x = comparable(a);
    Dataset<Row> y = comparable(b);
    long xs = x.count();
    assertThat(xs).as("%s: rows", what).isEqualTo(y.count());
    List<Row> only = x.exceptAll(y).union(y.exceptAll(x)).limit(10).collectAsList();
    assertThat(only).as("%s: rows only one of them holds", what).isEmpty();
  }

  private static Dataset<Row> comparable(Dataset<Row> rows) {
    List<String> columns = Arrays.asList(rows.columns());
    Dataset<Row> out = rows.drop("ingest_ts", "batch_id", "recorded_at");
    if (columns.contains("source_file")) {
      out = out.withColumn("source_file", functions.regexp_replace(out.col("source_file"), "^s3a?://[^/]+/", ""));
    }
    return out;
  }
}
