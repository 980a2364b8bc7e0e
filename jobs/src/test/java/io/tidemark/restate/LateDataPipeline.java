package io.tidemark.restate;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.SeedScenarios;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.config.TableName;
import io.tidemark.pipeline.StreamDef;
import io.tidemark.stream.Provenance;
import io.tidemark.stream.StreamSpec;
import io.tidemark.testing.Pipeline;
import io.tidemark.testing.TestStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pipeline with something late for every stream, made once per test JVM: the seed with a company change a day late
 * ({@link Pipeline#withLateChange}), then an event far ahead (arrival 7: event 201 at 03:00 moves the watermarks,
 * the counts' to 02:50 and the dedup's to 02:30), then (arrival 8) a new event behind both (302 at 01:00, dropped
 * by both streams) and event 101 again, at 02:45: behind the counts' watermark, but after the dedup forgot the id,
 * so the events table holds it twice. {@link #afterLateChange} are the marks a restatement run after arrival 6
 * would have left.
 */
final class LateDataPipeline {
  private static LateDataPipeline made;

  final Pipeline pipeline;
  final Marks afterLateChange;

  private LateDataPipeline(Pipeline pipeline, Marks afterLateChange) {
    this.pipeline = pipeline;
    this.afterLateChange = afterLateChange;
  }

  static synchronized LateDataPipeline get(TestStack stack) {
    if (made == null) {
      try {
        Pipeline p = Pipeline.withLateChange(stack, "late_data", Files.createTempDirectory("late-data-cp"));
        Marks afterLateChange = marks(stack, p);
        p.arrive(new Arrival(7, List.of(LandingFile.of(SeedScenarios.EVENTS, "ahead.jsonl",
            "{\"event_id\":201,\"company_id\":\"c4\",\"amount\":1.00,\"event_ts\":\"2026-01-01T03:00:00Z\"}\n"))));
        p.arrive(new Arrival(8, List.of(LandingFile.of(SeedScenarios.EVENTS, "behind.jsonl",
            "{\"event_id\":302,\"company_id\":\"c1\",\"amount\":3.00,\"event_ts\":\"2026-01-01T01:00:00Z\"}\n"
                + "{\"event_id\":101,\"company_id\":\"c1\",\"amount\":5.00,\"event_ts\":\"2026-01-01T02:45:00Z\"}\n"))));
        made = new LateDataPipeline(p, afterLateChange);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return made;
  }

  /** The tables at the staging branch's head, as a plan pins them. */
  PinnedTables at(TestStack stack) {
    TidemarkConfig c = pipeline.config();
    return PinnedTables.at(stack.spark(), c.nessieRef(), stack.nessie().hash(c.nessieRef()));
  }

  /** The marks now, as a plan reads them: the streams' watermarks, the raw archives' snapshots. */
  Marks now(TestStack stack) {
    return marks(stack, pipeline);
  }

  /** As the plan reads them: the snapshot of every raw archive written, the watermark of every stream that has one. */
  private static Marks marks(TestStack stack, Pipeline p) {
    TidemarkConfig c = p.config();
    PinnedTables at = PinnedTables.at(stack.spark(), c.nessieRef(), stack.nessie().hash(c.nessieRef()));
    Map<String, Long> snapshots = new LinkedHashMap<>();
    for (TableName raw : c.pipeline().rawTables()) {
      Long s = at.snapshot(raw);
      if (s != null) {
        snapshots.put(raw.toString(), s);
      }
    }
    Map<String, Instant> watermarks = new LinkedHashMap<>();
    for (StreamDef s : c.pipeline().streams()) {
      if (s.kind() != StreamDef.Kind.RAW) {
        Provenance.watermark(stack.spark(), StreamSpec.of(s, c)).ifPresent(w -> watermarks.put(s.name(), w));
      }
    }
    return new Marks(snapshots, watermarks);
  }
}
