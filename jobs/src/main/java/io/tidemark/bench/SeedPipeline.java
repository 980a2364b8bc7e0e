package io.tidemark.bench;

import io.tidemark.CrashPoints;
import io.tidemark.config.ConfigException;
import io.tidemark.config.TableName;
import io.tidemark.land.SeedScenarios;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Feed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.PipelineFile;
import io.tidemark.stream.Dedup;
import io.tidemark.stream.RunReport;
import io.tidemark.stream.Scd2Upsert;
import io.tidemark.stream.WindowedAggregate;
import org.apache.spark.sql.SparkSession;

/**
 * The seed pipeline as the benchmarks measure it: its events feed, their windowed counts and the companies dimension,
 * whose lines the benchmarks write (pipelines/seed.yml). A benchmark's numbers are the seed's, comparable run to run.
 */
final class SeedPipeline {
  /** The seed, as built in: what the benchmarks without a configuration run. */
  static final SeedPipeline BUILT_IN = new SeedPipeline(PipelineFile.seed());

  private final Pipeline pipeline;

  private SeedPipeline(Pipeline pipeline) {
    this.pipeline = pipeline;
  }

  /** The configured pipeline, which must declare the seed's feeds: the benchmarks write their lines. */
  static SeedPipeline of(Pipeline p) {
    for (String feed : new String[] {SeedScenarios.EVENTS, SeedScenarios.COMPANIES}) {
      if (p.findFeed(feed).isEmpty()) {
        throw new ConfigException("the benchmarks measure the seed pipeline, whose feed " + feed + " the pipeline "
            + p.name() + " lacks: run them without TIDEMARK_PIPELINE");
      }
    }
    return new SeedPipeline(p);
  }

  /** The deduplicated events table of a configuration's pipeline (its scope included), which must be the seed's. */
  static TableName events(io.tidemark.config.TidemarkConfig c) {
    return of(c.pipeline()).events().dedupTable();
  }

  Pipeline pipeline() {
    return pipeline;
  }

  FactFeed events() {
    return (FactFeed) feed(SeedScenarios.EVENTS);
  }

  /** The events' windowed counts. */
  Aggregate counts() {
    return events().aggregates().get(0);
  }

  DimensionFeed companies() {
    return (DimensionFeed) feed(SeedScenarios.COMPANIES);
  }

  private Feed feed(String name) {
    return pipeline.feed(name);
  }

  /** A fresh, empty deduplicated events table named bench.name. */
  TableName freshEvents(SparkSession spark, String name) {
    return BenchTables.fresh(spark, n -> TableCatalog.deduplicated(n, events().schema(), events().dedupWatermark()),
        name);
  }

  /** A fresh, empty windowed counts table named bench.name. */
  TableName freshCounts(SparkSession spark, String name) {
    return BenchTables.fresh(spark, n -> TableCatalog.aggregate(n, counts()), name);
  }

  TableName freshDimension(SparkSession spark, String name) {
    return BenchTables.fresh(spark, n -> TableCatalog.dimension(n, companies().dimension()), name);
  }

  TableName freshChangeLog(SparkSession spark, String name) {
    return BenchTables.fresh(spark, n -> TableCatalog.changeLog(n, companies().dimension()), name);
  }

  /** One run of the events' dedup over {@code source} into {@code table}. */
  RunReport dedup(SparkSession spark, String source, TableName table, String checkpoint, Dedup.Mode mode) {
    return Dedup.run(spark, events().dedup().stream(), source, table, checkpoint, events().dedupWatermark(), mode,
        CrashPoints.NONE, events().schema());
  }

  /** One run of the events' windowed counts over {@code source} into {@code table}. */
  RunReport counts(SparkSession spark, String source, TableName table, String checkpoint) {
    return WindowedAggregate.run(spark, counts(), events().schema(), source, table, checkpoint, CrashPoints.NONE);
  }

  /** One run of the companies' SCD2 stream over {@code source} into {@code dimension} and {@code log}. */
  RunReport scd2(SparkSession spark, String source, TableName dimension, TableName log, String checkpoint) {
    return Scd2Upsert.run(spark, companies().stream(), source, dimension, log, checkpoint, companies().watermark(),
        CrashPoints.NONE, companies().dimension());
  }
}
