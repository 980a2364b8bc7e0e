package io.tidemark.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.config.TableName;
import io.tidemark.core.Measure;
import io.tidemark.core.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The pipeline file as read: the seed's file declares exactly what tidemark ran before the file existed (names,
 * tables, delays), the shop example reads as it is written, and a file that is not right is one line naming the file,
 * the line, the field and what is wrong.
 */
class PipelineFileTest {
  private static final String SEED_TEXT = read(Path.of("../pipelines/seed.yml"));

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void theSeedsFileKeepsTodaysNamesAndDelays() {
    Pipeline p = PipelineFile.seed();
    assertThat(PipelineFile.parse(SEED_TEXT, "x").tables()).as("the jar's seed is the repository's")
        .isEqualTo(p.tables());
    assertThat(p.tables()).extracting(TableName::toString).containsExactly("raw.events", "facts.events",
        "facts.event_counts", "raw.company_changes", "dims.companies", "dims.companies_changes", "raw.rejected",
        "audit.stream_batches", "audit.restatement_log", "audit.restatement_plan", "audit.checks",
        "audit.expectations");
    assertThat(p.streamNames()).containsExactly("raw", "dedup", "windowed-counts", "raw-companies", "scd2");
    FactFeed events = p.facts().get(0);
    assertThat(events.dedupWatermark()).isEqualTo(Duration.ofMinutes(30));
    Aggregate counts = events.aggregates().get(0);
    assertThat(counts.watermark()).isEqualTo(Duration.ofMinutes(10));
    assertThat(counts.rule().windows().size()).isEqualTo(Duration.ofMinutes(5));
    assertThat(counts.rule().schema().ddl()).isEqualTo("company_id STRING, w_start TIMESTAMP, n BIGINT");
    DimensionFeed companies = p.dimensions().get(0);
    assertThat(companies.watermark()).isEqualTo(Duration.ofDays(1));
    assertThat(companies.dimension().version().ddl()).isEqualTo("company_id STRING, name STRING, tier STRING, "
        + "valid_from TIMESTAMP, valid_to TIMESTAMP, is_current BOOLEAN");
    assertThat(companies.dimension().logged().ddl())
        .isEqualTo("company_id STRING, name STRING, tier STRING, change_ts TIMESTAMP, deleted BOOLEAN");
    assertThat(events.schema().required()).extracting(Object::toString).containsExactly("event_id", "event_ts");
  }

  @Test
  void theShopExampleReadsAsWritten() {
    Pipeline p = PipelineFile.read(Path.of("../pipelines/shop.yml"));
    assertThat(p.facts()).hasSize(2);
    assertThat(p.dimensions()).hasSize(2);
    FactFeed orders = p.facts().get(0);
    assertThat(orders.schema().keyList()).isEqualTo("order_id, line_no");
    assertThat(orders.schema().columns().column("price").type()).isEqualTo(Type.decimal(10, 2));
    assertThat(orders.schema().columns().column("business_day").type()).isEqualTo(Type.DATE);
    assertThat(orders.aggregates()).extracting(Aggregate::name).containsExactly("sales-per-store", "daily-customers");
    assertThat(orders.aggregates().get(0).rule().measures()).extracting(Measure::function)
        .containsExactly(Measure.Function.COUNT, Measure.Function.SUM, Measure.Function.MAX);
    assertThat(orders.aggregates().get(0).rule().measures().get(1).type()).as("Spark's sum of a decimal(10,2)")
        .isEqualTo(Type.decimal(20, 2));
    assertThat(orders.aggregates().get(0).table()).isEqualTo(TableName.parse("facts.sales_per_store"));
    assertThat(orders.raw()).isEqualTo(new Feed.Stage("raw-orders", TableName.parse("raw.orders")));
    FactFeed clicks = p.facts().get(1);
    assertThat(clicks.dedup()).isEqualTo(new Feed.Stage("clicks-dedup", TableName.parse("web.clicks")));
    assertThat(clicks.aggregates().get(0).rule().windows().size()).isEqualTo(Duration.ofMinutes(7));
    DimensionFeed stores = p.dimensions().get(1);
    assertThat(stores.schema().keyList()).isEqualTo("country, store_no");
    assertThat(stores.dimension().delete().value()).isEqualTo(true);
    assertThat(stores.dimension().logged().names()).as("the untracked note is the raw archive's only")
        .doesNotContain("note");
    assertThat(p.dimensions().get(0).dimension().delete().value()).isEqualTo("D");
    assertThat(p.shared().rejected()).isEqualTo(TableName.parse("landing.rejected"));
  }

  @Test
  void aScopePutsEveryTableInOneNamespace() {
    Pipeline p = PipelineFile.seed().scoped("t1");
    assertThat(p.tables()).extracting(TableName::toString).contains("t1.raw_events", "t1.facts_events",
        "t1.dims_companies_changes", "t1.audit_checks");
    assertThat(p.tables()).extracting(TableName::namespace).containsOnly("t1");
  }

  /**
   * The mistakes the issue names, and more: each a line of the seed's file changed, and the line, the field and the
   * words the message must say.
   */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "type: int, required: true}|type: integer, required: true}|facts[events].columns[event_id].type|unknown type 'integer'",
      "key: [event_id]|key: [id]|facts[events].key[0]|'id' is not a column of the feed",
      "event_time: event_ts|event_time: evt|facts[events].event_time|'evt' is not a column",
      "event_time: event_ts|event_time: amount|facts[events].event_time|it must be a timestamp",
      "{name: n, function: count}|{name: n, function: sum, column: company_id}|facts[events].aggregates[windowed-counts].measures[n].column|sum over company_id, a string",
      "name: companies|name: events|dimensions[events].name|the name events is taken already",
      "table: facts.event_counts|table: facts.events|facts[events].aggregates[windowed-counts].table|two tables named facts.events",
      "{stream: scd2,|{stream: dedup,|dimensions[companies].scd2.stream|two streams named dedup",
      "group_by: [company_id]|grup_by: [company_id]|facts[events].aggregates[windowed-counts].grup_by|unknown field",
      "watermark: 10 minutes|watermark: ten minutes|facts[events].aggregates[windowed-counts].watermark|expected a duration",
      "value: true|value: maybe|dimensions[companies].delete.value|not a boolean",
      "{name: n, function: count}|{name: n, function: avg}|facts[events].aggregates[windowed-counts].measures[n].function|unknown function 'avg'",
      "{name: n, function: count}|{name: company_id, function: count}|facts[events].aggregates[windowed-counts].measures[company_id].name|named twice",
      "attributes: [name, tier]|attributes: [name, change_ts]|dimensions[companies].attributes|change_ts is the key, the change time or the delete marker",
      "{name: event_id, type: int, required: true}|{name: event_id, type: int, required: false}|facts[events].columns[event_id].required|it is always required",
      "{name: amount, type: double}|{name: arrival, type: double}|facts[events].columns[arrival].name|named like one the raw archive adds",
      "{name: amount, type: double}|{name: amount, type: \"decimal(40,2)\"}|facts[events].columns[amount].type|1 <= precision <= 38",
      "table: raw.events}|table: raw events}|facts[events].raw.table|expected namespace.table, got 'raw events'",
      "{stream: raw, table|{stream: all, table|facts[events].raw.stream|not 'all'",
      "{name: amount, type: double}|{name: Order, type: double}|facts[events].columns[Order].name|'Order' is a word SQL reserves",
      "{name: n, function: count}|{name: at, function: count}|facts[events].aggregates[windowed-counts].measures[at].name|'at' is a word SQL reserves",
      "{name: amount, type: double}|{name: __amount, type: double}|facts[events].columns[__amount].name|starts with __",
      "window_start: w_start|window_start: amount|facts[events].aggregates[windowed-counts].window_start|named like a column of the feed events",
  })
  void aWrongFileIsOneLineNamingTheLineTheFieldAndWhatIsWrong(String from, String to, String where, String what) {
    String text = SEED_TEXT.replace(from, to);
    assertThat(text).as("the test changes the file").isNotEqualTo(SEED_TEXT);
    refused(text, changedLine(text), where, what);
  }

  @Test
  void aDecimalSumPastWhatADecimalHolds() {
    String text = SEED_TEXT.replace("{name: amount, type: double}", "{name: amount, type: \"decimal(30,2)\"}")
        .replace("{name: n, function: count}", "{name: n, function: sum, column: amount}");
    refused(text, lineOf(text, "function: sum, column: amount"),
        "facts[events].aggregates[windowed-counts].measures[n].column", "its sum needs 40 digits, more than the 38");
    String fits = text.replace("decimal(30,2)", "decimal(28,2)");
    assertThat(PipelineFile.parse(fits, "x").aggregates().get(0).rule().schema().ddl()).endsWith("n DECIMAL(38,2)");
  }

  @Test
  void anAggregateWithoutAWindow() {
    String text = SEED_TEXT.replace("        window: 5 minutes\n", "");
    refused(text, lineOf(text, "- name: windowed-counts"), "facts[events].aggregates[windowed-counts]",
        "has no window");
  }

  /** The file is refused in one line naming {@code p.yml}, the line, the field, and {@code what}. */
  private static void refused(String text, int line, String where, String what) {
    assertThatThrownBy(() -> PipelineFile.parse(text, "p.yml")).isInstanceOf(PipelineException.class)
        .hasMessageStartingWith("p.yml:" + line + ": " + where + ": ").hasMessageContaining(what)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  /** The line (from 1) where {@code text} first differs from the seed's file. */
  private static int changedLine(String text) {
    String[] a = SEED_TEXT.split("\n", -1);
    String[] b = text.split("\n", -1);
    int i = 0;
    while (i < Math.min(a.length, b.length) && a[i].equals(b[i])) {
      i++;
    }
    return i + 1;
  }

  /** The line (from 1) the text first holds {@code s} on. */
  private static int lineOf(String text, String s) {
    int at = text.indexOf(s);
    return (int) text.substring(0, at).chars().filter(c -> c == '\n').count() + 1;
  }

  @Test
  void notAFileOrNotYaml() {
    assertThatThrownBy(() -> PipelineFile.read(Path.of("no/such.yml"))).hasMessage("no/such.yml: no such file");
    assertThatThrownBy(() -> PipelineFile.parse("", "e.yml")).hasMessageContaining("e.yml: the file is empty");
    assertThatThrownBy(() -> PipelineFile.parse("pipeline: [", "y.yml")).hasMessageStartingWith("y.yml:")
        .hasMessageContaining("not valid YAML");
    assertThatThrownBy(() -> PipelineFile.parse("pipeline: p\n", "n.yml"))
        .hasMessageContaining("declares one feed or more");
    assertThatThrownBy(() -> PipelineFile.parse("pipeline: p\npipeline: q\nfacts: []\n", "d.yml"))
        .hasMessageStartingWith("d.yml:").hasMessageContaining("pipeline is given twice");
  }

  @Test
  void defaultsDeriveFromTheFeedsName() {
    Pipeline p = PipelineFile.parse("""
        pipeline: minimal
        facts:
          - name: readings
            columns:
              - {name: sensor, type: string}
              - {name: seq, type: long}
              - {name: value, type: "decimal(9,3)"}
              - {name: read_at, type: timestamp}
            key: [sensor, seq]
            event_time: read_at
            dedup: {watermark: 1 hour}
            aggregates:
              - name: per-sensor
                window: 15 minutes
                watermark: 5 minutes
                group_by: sensor
                measures: [{name: readings, function: count}, {name: peak, function: max, column: value}]
        dimensions:
          - name: sensors
            columns:
              - {name: sensor, type: string}
              - {name: site, type: string}
              - {name: since, type: timestamp}
            key: sensor
            change_time: since
            watermark: 1 day
        """, "m.yml");
    assertThat(p.streamNames()).containsExactly("raw-readings", "dedup-readings", "per-sensor", "raw-sensors",
        "scd2-sensors");
    assertThat(p.tables()).extracting(TableName::toString).startsWith("raw.readings", "facts.readings",
        "facts.per_sensor", "raw.sensors", "dims.sensors", "dims.sensors_changes");
    FactFeed f = p.facts().get(0);
    assertThat(f.schema().required()).as("the key and the time are required").extracting(Object::toString)
        .containsExactly("sensor", "seq", "read_at");
    assertThat(f.aggregates().get(0).rule().windowStart().name()).isEqualTo("window_start");
    DimensionFeed d = p.dimensions().get(0);
    assertThat(d.dimension().attributes()).as("every other column is tracked").extracting(Object::toString)
        .containsExactly("site");
    assertThat(d.dimension().delete()).as("no delete marker").isNull();
    assertThat(List.of(p.identity())).containsExactly("raw.readings");
  }
}
