package io.tidemark.testing;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.SeedScenarios;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
import java.util.List;

/**
 * The seed pipeline's tables (pipelines/seed.yml) by what they hold, as a configuration names them (its scope
 * included): what the tests of the seed read and write.
 */
public record SeedTables(TableName rawEvents, TableName rejected, TableName rawCompanyChanges, TableName events,
                         TableName eventCounts, TableName companies, TableName companyChanges,
                         TableName restatementLog, TableName restatementPlan, TableName auditChecks,
                         TableName streamBatches, Pipeline pipeline) {

  public static SeedTables of(TidemarkConfig config) {
    return of(config.pipeline());
  }

  public static SeedTables of(Pipeline p) {
    FactFeed events = (FactFeed) p.feed(SeedScenarios.EVENTS);
    DimensionFeed companies = (DimensionFeed) p.feed(SeedScenarios.COMPANIES);
    return new SeedTables(events.raw().table(), p.shared().rejected(), companies.raw().table(), events.dedupTable(),
        events.aggregates().get(0).table(), companies.table(), companies.changes(), p.shared().restatementLog(),
        p.shared().restatementPlan(), p.shared().auditChecks(), p.shared().streamBatches(), p);
  }

  /** Every table of the pipeline, in its order. */
  public List<TableName> all() {
    return pipeline.tables();
  }
}
