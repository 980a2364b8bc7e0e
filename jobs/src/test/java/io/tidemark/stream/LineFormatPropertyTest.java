package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.Seed;
import io.tidemark.core.Ingest;
import io.tidemark.core.KeyAccount;
import io.tidemark.core.LineReader;
import io.tidemark.core.Lines;
import io.tidemark.core.Quarantine;
import io.tidemark.core.Rescued;
import io.tidemark.testing.LocalSpark;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One reading of a line ({@link LineReader}): over generated corpora of odd files (a byte order mark at a file's
 * start and inside it, CRLF and lone carriage returns, a last line without its end, duplicate keys, nested values,
 * numbers beyond a long, bytes that are not UTF-8, empty files, blank lines, a very long line), every reader of a
 * landed line agrees on every line: the raw stream's archive and quarantine (Spark's text source through the core's
 * reader and the feed's rule), the streams that read the JSON source (dedup, the counts, SCD2: the same valid rows with
 * the same values), the publish gate's accounting (lines and every key's values balance, file by file, as
 * {@code lines-accounted} checks them) and DuckDB reading the archive's Parquet files, as the audits do.
 */
class LineFormatPropertyTest {
  private static final int CORPORA = 4;
  private static final int FILES = 24;

  @TempDir
  Path dir;

  @Test
  void everyReaderReadsEveryLineAlike() throws Exception {
    SparkSession spark = LocalSpark.get();
    for (int corpus = 0; corpus < CORPORA; corpus++) {
      SplittableRandom rng = new SplittableRandom(7919L * (corpus + 1));
      Path root = Files.createDirectories(dir.resolve("corpus-" + corpus).resolve("arrival=0001"));
      Map<String, byte[]> files = new TreeMap<>();
      for (int f = 0; f < FILES; f++) {
        byte[] content = file(rng, corpus * 1000 + f * 40);
        Path p = root.resolve("f" + f + ".jsonl");
        Files.write(p, content);
        files.put(p.toUri().getPath(), content);
      }
      check(spark, root.getParent(), files, "corpus " + corpus);
    }
  }

  private void check(SparkSession spark, Path source, Map<String, byte[]> files, String what) throws Exception {
    Dataset<Row> parsed = LineFormat.of(Seed.EVENTS).parse(LineFormat.readBatch(spark, source.toString())).cache();
    try {
      List<Row> rows = parsed.select(col(Ingest.SOURCE_FILE.name()), col(Quarantine.LINE.name()),
          col(Quarantine.REASON.name()), col(Seed.EVENT_ID.name()), col(Seed.COMPANY_ID.name()),
          col(Seed.AMOUNT.name()), col(Seed.EVENT_TS.name()), col(Rescued.DATA.name())).collectAsList();
      Map<String, List<Row>> byFile = new HashMap<>();
      rows.forEach(r -> byFile.computeIfAbsent(java.net.URI.create(r.getString(0)).getPath(), k -> new ArrayList<>())
          .add(r));
      long lines = 0;
      for (Map.Entry<String, byte[]> f : files.entrySet()) {
        List<LineReader.Line> core = LineReader.lines(f.getValue());
        List<Row> raw = byFile.getOrDefault(f.getKey(), List.of());
        lines += core.size();
        // the raw stream: one row per line, of the same text, a line that is not UTF-8 quarantined as such
        assertThat(raw).as("%s %s: rows of the raw stream", what, f.getKey()).hasSize(core.size());
        assertThat(Lines.count(f.getValue())).as("%s %s: the gate's count", what, f.getKey()).isEqualTo(core.size());
        assertThat(raw.stream().map(r -> r.getString(1)).sorted().toList())
            .as("%s %s: the lines' text", what, f.getKey())
            .isEqualTo(core.stream().map(LineReader.Line::text).sorted().toList());
        core.stream().filter(l -> l.defect() != null).forEach(l -> assertThat(raw).as("%s: %s", what, l.defect())
            .anySatisfy(r -> assertThat(r.getString(2)).isEqualTo(l.defect())));
        // the gate: every value of every key of the file is in a typed column, the rescued data or a quarantined line
        KeyAccount keys = new KeyAccount();
        for (Row r : raw) {
          if (r.isNullAt(2)) {
            List<String> typed = new ArrayList<>();
            for (int i = 3; i <= 6; i++) {
              if (!r.isNullAt(i)) {
                typed.add(List.of("event_id", "company_id", "amount", "event_ts").get(i - 3));
              }
            }
            keys.archived(typed, r.getString(7));
          } else {
            keys.quarantined(r.getString(1));
          }
        }
        keys.landedFile(f.getValue());
        assertThat(keys.unbalanced()).as("%s %s: the gate's accounting of values", what, f.getKey()).isEmpty();
      }
      assertThat(rows).as("%s: the lines of every file", what).hasSize((int) lines);

      // the streams that read the JSON source: the same valid rows, with the same values
      List<String> archived = parsed.where(col(Quarantine.REASON.name()).isNull())
          .selectExpr("concat_ws('|', event_id, company_id, amount, CAST(event_ts AS STRING))").collectAsList()
          .stream().map(r -> r.getString(0)).sorted().toList();
      List<String> valid = LineFormat.of(Seed.EVENTS).validBatch(spark, source.toString())
          .selectExpr("concat_ws('|', event_id, company_id, amount, CAST(event_ts AS STRING))").collectAsList()
          .stream().map(r -> r.getString(0)).sorted().toList();
      assertThat(valid).as("%s: the valid rows of the JSON source (dedup, counts, SCD2) and of the raw archive", what)
          .isEqualTo(archived).isNotEmpty();

      // DuckDB reads the archive's Parquet files, as the audits do, to the same values
      Path parquet = dir.resolve(what.replace(' ', '-') + ".parquet");
      parsed.where(col(Quarantine.REASON.name()).isNull()).select(col(Seed.EVENT_ID.name()),
          col(Seed.COMPANY_ID.name()), col(Seed.AMOUNT.name()), col(Seed.EVENT_TS.name()),
          col(Rescued.DATA.name())).coalesce(1).write().parquet(parquet.toString());
      List<String> bySpark = parsed.where(col(Quarantine.REASON.name()).isNull())
          .selectExpr("concat_ws('|', coalesce(CAST(event_id AS STRING), 'null'), coalesce(company_id, 'null'), "
              + "coalesce(CAST(amount AS STRING), 'null'), coalesce(CAST(unix_micros(event_ts) AS STRING), 'null'), "
              + "coalesce(rescued_data, 'null'))").collectAsList().stream()
          .map(r -> r.getString(0)).sorted().toList();
      List<String> byDuckDb = new ArrayList<>();
      try (Connection db = DriverManager.getConnection("jdbc:duckdb:"); Statement st = db.createStatement();
           ResultSet rs = st.executeQuery("SELECT concat_ws('|', coalesce(CAST(event_id AS VARCHAR), 'null'), "
               + "coalesce(company_id, 'null'), coalesce(CAST(amount AS VARCHAR), 'null'), "
               + "coalesce(CAST(epoch_us(event_ts) AS VARCHAR), 'null'), coalesce(rescued_data, 'null')) "
               + "FROM read_parquet('" + parquet + "/*.parquet')")) {
        while (rs.next()) {
          byDuckDb.add(rs.getString(1));
        }
      }
      assertThat(normalized(byDuckDb.stream().sorted().toList())).as("%s: DuckDB's reading of the archive", what)
          .isEqualTo(normalized(bySpark));
    } finally {
      parsed.unpersist();
    }
  }

  /** The amount as a number, however each prints it ("1.2345678901234568E29", "1.2345678901234568e+29", "nan"). */
  private static List<String> normalized(List<String> rows) {
    return rows.stream().map(r -> {
      String[] p = r.split("\\|", 5);
      if (!p[2].equals("null")) {
        p[2] = p[2].equalsIgnoreCase("nan") ? "NaN" : Double.toString(Double.parseDouble(p[2]));
      }
      return String.join("|", p);
    }).sorted().toList();
  }

  /** A file of odd lines: {@code ids} makes its event ids its own. */
  private static byte[] file(SplittableRandom rng, int ids) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int kind = rng.nextInt(10);
    if (kind == 0) {
      return new byte[0]; // an empty file
    }
    if (kind == 1) {
      out.writeBytes(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}); // as desktop tools export
    }
    int n = rng.nextInt(1, 8);
    for (int i = 0; i < n; i++) {
      if (rng.nextInt(12) == 0) {
        out.writeBytes(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}); // files put together
      }
      out.writeBytes(line(rng, ids + i));
      boolean last = i == n - 1;
      if (!last || rng.nextBoolean()) {
        out.writeBytes(switch (rng.nextInt(4)) {
          case 0 -> new byte[] {'\r', '\n'};
          default -> new byte[] {'\n'};
        });
      }
    }
    return out.toByteArray();
  }

  private static byte[] line(SplittableRandom rng, int id) {
    String ts = String.format("\"2026-01-01T00:%02d:%02dZ\"", rng.nextInt(60), rng.nextInt(60));
    String company = List.of("\"c1\"", "\"c2\"", "\"\\u00e9t\\u00e9\"", "\"\u00e9t\u00e9 \ud83d\ude00\"", "null")
        .get(rng.nextInt(5));
    String amount = List.of("1.5", "100", "-0.0", "1e3", "\"12,50\"", "null", "NaN", "123456789012345678901234567890")
        .get(rng.nextInt(8));
    String extra = switch (rng.nextInt(7)) {
      case 0 -> ",\"meta\":{\"a\":[1,2,{\"b\":null}],\"c\":\"x\"}";
      case 1 -> ",\"big\":123456789012345678901234567890123";
      case 2 -> ",\"event_id\":" + (id + 1000000); // a key twice: the last value counts, as Spark reads it
      case 3 -> ",\"pad\":\"" + "x".repeat(rng.nextInt(100_000, 200_000)) + "\"";
      case 4 -> ",\"note\":\"a\rb\""; // a carriage return inside a string: not JSON
      default -> "";
    };
    String json = "{\"event_id\":" + id + ",\"company_id\":" + company + ",\"amount\":" + amount + ",\"event_ts\":" + ts
        + extra + "}";
    return switch (rng.nextInt(14)) {
      case 0 -> new byte[0]; // a blank line
      case 1 -> "  ".getBytes(StandardCharsets.UTF_8);
      case 2 -> "not json".getBytes(StandardCharsets.UTF_8);
      case 3 -> ("{\"company_id\":\"c1\",\"event_ts\":" + ts + "}").getBytes(StandardCharsets.UTF_8); // no event_id
      case 4 -> "[1,2,3]".getBytes(StandardCharsets.UTF_8);
      case 5 -> (json + "\r{\"event_id\":" + (id + 2000000) + "}").getBytes(StandardCharsets.UTF_8); // a lone CR
      case 6 -> notUtf8(json); // a byte that is not UTF-8 inside a string
      case 7 -> ("{\"event_id\":99999999999999999999,\"company_id\":\"c1\",\"event_ts\":" + ts + "}")
          .getBytes(StandardCharsets.UTF_8);
      default -> json.getBytes(StandardCharsets.UTF_8);
    };
  }

  private static byte[] notUtf8(String json) {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    int at = json.indexOf("\"event_ts\"") + 1;
    b[at] = (byte) 0xFF;
    return b;
  }
}
