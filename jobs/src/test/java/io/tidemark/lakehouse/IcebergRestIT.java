package io.tidemark.lakehouse;

import io.tidemark.testing.SeedTables;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.config.TableName;
import io.tidemark.land.SeedScenarios;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.restate.Restatement;
import io.tidemark.testing.Cli;
import io.tidemark.testing.Pipeline;
import io.tidemark.testing.PyIceberg;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.TestStack;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.TimestampType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another engine reads and writes the tables: PyIceberg through the Iceberg REST catalog of the embedded Nessie
 * server, against rows that Spark reads through the NessieCatalog, on main and on a restatement's tag; and the
 * other way round, tables PyIceberg creates are read by {@code tidemark sql}. The tests share one pipeline, made
 * once for the class (its checkpoints in a directory of the class's own: {@link #tmp} is each test's).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IcebergRestIT extends StackTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Pipeline pipeline;
  private String tag;
  private PyIceberg py;

  /**
   * The seed's arrivals and a late company change, restated (tag restated-*), then one more arrival on main, so
   * that main and the tag differ.
   */
  @BeforeAll
  void pipelineRestatedThenMovedOn(@TempDir Path classDir) throws Exception {
    py = PyIceberg.install(stack.config().icebergRestUri(), stack.endpoints());
    pipeline = Pipeline.withLateChange(stack, "rest", classDir.resolve("checkpoints"));
    Restatement.Result restated = new Restatement(pipeline.lakehouse(),
        Restatement.Options.defaults(stack.config()).withPrefix(refName("rest") + "-")).run();
    assertThat(restated.merged()).as("%s", restated.checks()).isTrue();
    tag = restated.tag();
    pipeline.arrive(new Arrival(7, List.of(
        LandingFile.of(SeedScenarios.EVENTS, "after-tag.jsonl",
            "{\"event_id\":900,\"company_id\":\"c4\",\"amount\":2.5,\"event_ts\":\"2026-01-03T00:01:00Z\"}\n"
                + "not json\n"),
        LandingFile.of(SeedScenarios.COMPANIES, "after-tag.jsonl",
            "{\"company_id\":\"c4\",\"name\":\"Four\",\"tier\":\"bronze\",\"change_ts\":\"2026-01-03T00:02:00Z\"}\n"))));
  }

  private List<TableName> tables() {
    var t = SeedTables.of(pipeline.config());
    return List.of(t.rawEvents(), t.rejected(), t.rawCompanyChanges(), t.events(), t.eventCounts(), t.companies(),
        t.companyChanges(), t.restatementLog(), t.auditChecks());
  }

  @Test
  void listsTheNamespacesAndEveryTable() {
    JsonNode listed = py.run(stack.config().nessieRef(), null, "list").ok();
    String ns = tables().get(0).namespace();
    assertThat(texts(listed.get("namespaces"))).contains(ns);
    assertThat(texts(listed.get("tables"))).containsAll(tables().stream().map(TableName::toString).toList());
  }

  @Test
  void everyTableReadsAsSparkReadsItOnTheStagingBranch() {
    compareEveryTable(stack.config().nessieRef(), TableName::sql);
  }

  @Test
  void everyTableReadsAsSparkReadsItOnTheRestatementTag() {
    compareEveryTable(tag, t -> t.sqlAt(tag));
    var t = SeedTables.of(pipeline.config());
    JsonNode onTag = py.run(tag, null, "read", t.rawEvents().toString(), t.companies().toString()).ok();
    JsonNode onMain = py.run(stack.config().nessieRef(), null, "read", t.rawEvents().toString(),
        t.companies().toString()).ok();
    for (TableName name : List.of(t.rawEvents(), t.companies())) {
      assertThat(onTag.get(name.toString()).get("rows").size()).as("%s: the tag is before arrival 7", name)
          .isLessThan(onMain.get(name.toString()).get("rows").size());
    }
  }

  private void compareEveryTable(String ref, java.util.function.Function<TableName, String> sparkName) {
    List<String> names = tables().stream().map(TableName::toString).toList();
    List<String> args = new ArrayList<>(List.of("read"));
    args.addAll(names);
    JsonNode read = py.run(ref, null, args.toArray(String[]::new)).ok();
    int nonEmpty = 0;
    for (TableName t : tables()) {
      JsonNode table = read.get(t.toString());
      Dataset<Row> df = spark.sql("SELECT * FROM " + sparkName.apply(t));
      assertThat(texts(table.get("columns"))).as("%s@%s columns", t, ref).containsExactly(df.columns());
      List<List<Object>> expected = sparkRows(df);
      assertThat(rows(table.get("rows"))).as("%s@%s rows through REST", t, ref)
          .containsExactlyInAnyOrderElementsOf(expected);
      assertThat(table.get("metadata_location").asText()).as("%s@%s: the metadata the NessieCatalog wrote", t, ref)
          .startsWith(stack.config().warehouse() + "/");
      nonEmpty += expected.isEmpty() ? 0 : 1;
    }
    assertThat(nonEmpty).as("tables with rows on %s", ref).isGreaterThanOrEqualTo(tables().size() - 1);
  }

  /** PyIceberg creates a table and appends twice on main; {@code tidemark sql} reads every row. */
  @Test
  void aTableWrittenByPyIcebergIsReadByTidemarkSql() {
    String table = TestStack.unique("py") + ".written";
    List<List<Object>> first = generated(new Random(table.hashCode()), 0, 40);
    List<List<Object>> second = generated(new Random(table.hashCode() + 1), 40, 25);
    assertThat(py.run("main", rowsJson(first), "write", table).ok().get("appended").asInt()).isEqualTo(40);
    assertThat(py.run("main", rowsJson(second), "write", table).ok().get("appended").asInt()).isEqualTo(25);

    List<List<Object>> all = new ArrayList<>(first);
    all.addAll(second);
    assertThat(tidemarkSql(table, "main")).as("tidemark sql of what PyIceberg wrote").isEqualTo(all);
  }

  /**
   * On a branch PyIceberg's commits stay on the branch (main does not see them); a tag refuses writes. Reads of a
   * ref are {@code <REST URI><ref>}.
   */
  @Test
  void onABranchPyIcebergWritesOnlyThereAndATagTakesNoWrites() {
    String branch = refName("pybranch");
    spark.sql("CREATE BRANCH `" + branch + "` IN nessie FROM main");
    String table = TestStack.unique("py") + ".on_branch";
    List<List<Object>> rows = generated(new Random(branch.hashCode()), 0, 12);
    py.run(branch, rowsJson(rows), "write", table).ok();

    assertThat(tidemarkSql(table, branch)).isEqualTo(rows);
    assertThat(texts(py.run(branch, null, "list").ok().get("tables"))).contains(table);
    assertThat(texts(py.run("main", null, "list").ok().get("tables"))).doesNotContain(table);

    PyIceberg.Result onTag = py.run(tag, rowsJson(rows), "write", table);
    assertThat(onTag.exitCode()).isEqualTo(1);
    assertThat(onTag.err()).contains("must be a branch");
  }

  /** The embedded Nessie has the S3 secret in its environment only: not on its command line, not in its log. */
  @Test
  void theS3SecretIsNotOnNessiesCommandLineNorInItsLog() throws Exception {
    String secret = stack.endpoints().s3SecretKey().reveal();
    Path run = stack.home().resolve("run");
    long pid = Long.parseLong(Files.readString(run.resolve("nessie.pid")).trim().split("\\s+")[0]);
    String cmdline = Files.readString(Path.of("/proc/" + pid + "/cmdline"), StandardCharsets.UTF_8);
    assertThat(cmdline).contains("-Dnessie.catalog.default-warehouse=").doesNotContain(secret);
    assertThat(Files.readString(run.resolve("nessie.log"), StandardCharsets.UTF_8)).doesNotContain(secret);
    String environ = Files.readString(Path.of("/proc/" + pid + "/environ"), StandardCharsets.UTF_8);
    assertThat(Arrays.asList(environ.split("\0"))).as("given as a secret reference's value")
        .anyMatch(v -> v.endsWith("=" + secret));
  }

  /** Rows read by {@code tidemark sql --format json} (the real command line), timestamps as microseconds. */
  private List<List<Object>> tidemarkSql(String table, String ref) {
    TableName name = TableName.parse(table);
    Cli.Result r = Cli.inProcess(stack.env(), "sql", "--format", "json",
        "SELECT id, name, amount, unix_micros(ts) AS ts FROM " + name.sqlAt(ref) + " ORDER BY id");
    assertThat(r.exitCode()).as("%s", r).isZero();
    try {
      List<List<Object>> out = new ArrayList<>();
      for (JsonNode row : JSON.readTree(r.out())) {
        out.add(Arrays.asList(value(row.get("id")), value(row.get("name")), value(row.get("amount")),
            value(row.get("ts"))));
      }
      return out;
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + r, e);
    }
  }

  /** id, name, amount, ts in microseconds; some values null, as data has. */
  private static List<List<Object>> generated(Random random, int firstId, int n) {
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(Arrays.asList((long) (firstId + i),
          random.nextInt(5) == 0 ? null : "name-" + Long.toString(random.nextLong(), 36),
          random.nextInt(5) == 0 ? null : Math.round(random.nextDouble() * 1e6) / 100.0,
          random.nextInt(5) == 0 ? null : 1_767_225_600_000_000L + random.nextLong(86_400_000_000L * 400)));
    }
    return rows;
  }

  private static String rowsJson(List<List<Object>> rows) {
    try {
      return JSON.writeValueAsString(java.util.Map.of("rows", rows));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Spark's rows as the script prints them: whole numbers as long, timestamps as microseconds since the epoch. */
  private static List<List<Object>> sparkRows(Dataset<Row> df) {
    List<Column> cols = new ArrayList<>();
    for (StructField f : df.schema().fields()) {
      Column c = df.col("`" + f.name() + "`");
      cols.add(f.dataType() instanceof TimestampType ? functions.unix_micros(c).as(f.name()) : c);
    }
    List<List<Object>> out = new ArrayList<>();
    for (Row r : df.select(cols.toArray(new Column[0])).collectAsList()) {
      List<Object> row = new ArrayList<>();
      for (int i = 0; i < r.size(); i++) {
        Object v = r.get(i);
        row.add(v instanceof Integer || v instanceof Short || v instanceof Byte ? ((Number) v).longValue()
            : v instanceof Float ? ((Float) v).doubleValue() : v);
      }
      out.add(row);
    }
    return out;
  }

  private static List<List<Object>> rows(JsonNode rows) {
    List<List<Object>> out = new ArrayList<>();
    for (JsonNode row : rows) {
      List<Object> values = new ArrayList<>();
      row.forEach(v -> values.add(value(v)));
      out.add(values);
    }
    return out;
  }

  private static Object value(JsonNode v) {
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isIntegralNumber()) {
      return v.asLong();
    }
    if (v.isNumber()) {
      return v.asDouble();
    }
    if (v.isBoolean()) {
      return v.asBoolean();
    }
    return v.asText();
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(v -> out.add(v.asText()));
    return out;
  }

  /** A unique reference name that any client can spell in a URI path and in Spark SQL (no underscore). */
  private static String refName(String prefix) {
    return TestStack.unique(prefix).replace('_', '-');
  }
}
