package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What scripts read from `tidemark sql --format json|csv`: every column of every row, nulls included. */
class ResultPrinterTest {
  // a current SCD2 version has valid_to NULL; the columns come in the query's order, not alphabetically
  private static final String QUERY = "SELECT * FROM VALUES ('c2', CAST(NULL AS TIMESTAMP), 'Acme, Inc.', 7), "
      + "('c1', TIMESTAMP '2024-01-02 03:04:05', '', CAST(NULL AS INT)) AS t(company_id, valid_to, name, n) "
      + "ORDER BY company_id DESC";

  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkSession.builder().master("local[1]").appName("ResultPrinterTest")
        .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC").getOrCreate();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static String print(ResultPrinter.Format format, String sql) {
    StringWriter out = new StringWriter();
    new ResultPrinter(format, 100).print(spark.sql(sql), new PrintWriter(out), new PrintWriter(new StringWriter()));
    return out.toString();
  }

  @Test
  void jsonKeepsNullColumnsInQueryOrder() throws Exception {
    JsonNode rows = new ObjectMapper().readTree(print(ResultPrinter.Format.json, QUERY));
    assertThat(rows).hasSize(2);
    List<String> keys = new ArrayList<>();
    rows.get(0).fieldNames().forEachRemaining(keys::add);
    assertThat(keys).containsExactly("company_id", "valid_to", "name", "n");
    assertThat(rows.get(0).get("valid_to").isNull()).isTrue();
    assertThat(rows.get(0).get("n").asInt()).isEqualTo(7);
    assertThat(rows.get(1).get("valid_to").asText()).startsWith("2024-01-02T03:04:05");
    assertThat(rows.get(1).get("n").isNull()).isTrue();
    assertThat(rows.get(1).get("name").asText()).isEmpty();
  }

  @Test
  void jsonKeepsColumnsOfTheSameName() {
    assertThat(print(ResultPrinter.Format.json, "SELECT 1 AS id, NULL AS id"))
        .contains("{\"id\":1,\"id\":null}");
  }

  @Test
  void csvLeavesNullsEmptyAndQuotesEmptyStrings() {
    assertThat(print(ResultPrinter.Format.csv, QUERY).split("\\R")).containsExactly(
        "company_id,valid_to,name,n",
        "c2,,\"Acme, Inc.\",7",
        "c1,2024-01-02 03:04:05,\"\",");
  }
}
