package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.SeedTables;
import io.tidemark.core.LineReader;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.publish.Publisher;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.StagedPipeline;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * An arrival of the odd files common tools write (a byte order mark, CRLF line ends, a last line without its end,
 * duplicate keys, nested values, a number beyond a long, a line that is not UTF-8, an empty file, a very long line)
 * goes through {@code stream all} and {@code publish} as any other: archived, the lines that must be quarantined
 * quarantined with the reason {@link LineReader} gives, and published, the gate's accounting balancing file by file.
 * {@code LineFormatPropertyTest} checks the readers agree over generated corpora; this is the whole way once.
 */
class OddLinesIT extends StackTest {
  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  @Test
  void anArrivalOfOddFilesIsArchivedQuarantinedWhereItMustBeAndPublished() {
    String pad = "x".repeat(300_000);
    byte[] notUtf8 = "{\"event_id\":9,\"company_id\":\"c1\",\"amount\":1,\"event_ts\":\"2026-01-01T00:09:00Z\",\"n\":\"?\"}\n"
        .getBytes(StandardCharsets.UTF_8);
    notUtf8[notUtf8.length - 4] = (byte) 0xFF;
    List<LandingFile> files = List.of(
        new LandingFile("events", "bom.jsonl", concat(BOM, utf8(event(1, "00:01:00", "") + event(2, "00:02:00", "")))),
        new LandingFile("events", "crlf.jsonl", utf8(event(3, "00:03:00", "").replace("\n", "\r\n")
            + event(4, "00:04:00", "").replace("\n", "\r\n"))),
        new LandingFile("events", "no-last-end.jsonl", utf8(event(5, "00:05:00", "").strip())),
        new LandingFile("events", "keys.jsonl", utf8(event(6, "00:06:00", ",\"event_id\":7")
            + event(8, "00:08:00", ",\"meta\":{\"a\":[1,{\"b\":null}]},\"big\":123456789012345678901234567890"))),
        new LandingFile("events", "not-utf8.jsonl", notUtf8),
        new LandingFile("events", "empty.jsonl", new byte[0]),
        new LandingFile("events", "long.jsonl", utf8(event(10, "00:10:00", ",\"pad\":\"" + pad + "\""))),
        new LandingFile("events", "joined.jsonl", concat(concat(BOM, utf8(event(11, "00:11:00", ""))),
            concat(BOM, utf8(event(12, "00:12:00", ""))))),
        new LandingFile("companies", "bom-crlf.jsonl", concat(BOM, utf8(
            "{\"company_id\":\"c1\",\"name\":\"Acme\",\"tier\":\"gold\",\"change_ts\":\"2026-01-01T00:00:00Z\"}\r\n"
            + "{\"company_id\":\"c2\",\"name\":\"Bolt\",\"tier\":\"silver\",\"change_ts\":\"2026-01-01T00:00:00Z\"}"))));

    StagedPipeline p = new StagedPipeline(stack, "oddlines", tmp.resolve("checkpoints"));
    p.land(new Arrival(1, files));
    p.streamAll();
    Publisher.Result r = p.publish();
    assertThat(r.mergeHash()).as("published: %s", r.summary()).isNotNull();

    SparkSession spark = p.spark();
    SeedTables t = SeedTables.of(p.config());
    String main = p.published();
    long eventLines = files.stream().filter(f -> "events".equals(f.feed()))
        .mapToLong(f -> LineReader.lines(f.content()).size()).sum();
    assertThat(eventLines).isEqualTo(11);
    assertThat(spark.table(t.rawEvents().sqlAt(main)).count()).as("archived events").isEqualTo(10);
    List<Row> rejected = spark.table(t.rejected().sqlAt(main)).select("reason").collectAsList();
    assertThat(rejected).as("quarantined").singleElement()
        .satisfies(row -> assertThat(row.getString(0)).startsWith("not UTF-8: byte 0xff at "));
    // event 6 is sent as 7 (a key twice: the last value counts), so ten distinct events
    assertThat(spark.table(t.events().sqlAt(main)).select("event_id").as(Encoders.INT())
        .collectAsList()).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 7, 8, 10, 11, 12);
    assertThat(spark.table(t.companies().sqlAt(main)).count()).as("companies, BOM and CRLF read").isEqualTo(2);
    assertThat(spark.table(t.companies().sqlAt(main)).where("company_id = 'c1'").count()).isEqualTo(1);
  }

  private static String event(int id, String time, String extra) {
    return "{\"event_id\":" + id + ",\"company_id\":\"c1\",\"amount\":" + id + ".5,\"event_ts\":\"2026-01-01T" + time
        + "Z\"" + extra + "}\n";
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(a);
    out.writeBytes(b);
    return out.toByteArray();
  }
}
