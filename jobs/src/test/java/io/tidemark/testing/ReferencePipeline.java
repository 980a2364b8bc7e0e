package io.tidemark.testing;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.storage.Storage;
import java.nio.file.Path;
import java.util.List;

/**
 * What a home of its own would publish had it met no failure: a pipeline on the shared stack ({@link StagedPipeline})
 * that takes in the same landed files, copied from the home's landing zone, in the same runs, and publishes them.
 * A recipe released a failure whole when the home's main then holds what this one's does.
 */
public final class ReferencePipeline {
  private final TestStack stack;
  private final StagedPipeline pipeline;
  private final Storage home;
  private final TidemarkConfig homeConfig;
  private final OtherHome tables;

  /** {@code home}: the home's object store; {@code tables}: its tables, read from the suite's Spark. */
  public ReferencePipeline(TestStack stack, String name, Path checkpoints, Storage home, TidemarkConfig homeConfig,
                           OtherHome tables) {
    this.stack = stack;
    this.pipeline = new StagedPipeline(stack, name, checkpoints);
    this.home = home;
    this.homeConfig = homeConfig;
    this.tables = tables;
  }

  public StagedPipeline pipeline() {
    return pipeline;
  }

  /**
   * Takes in what landed in the home since it last did, in one run of its streams, and publishes it: called where the
   * home's streams took in an arrival, so that both make the same runs.
   */
  public void takeIn() {
    try (Storage shared = Storage.connect(stack.config(), stack.endpoints())) {
      for (Storage.ObjectInfo o : home.list(homeConfig.landingBucket(), "")) {
        if (shared.stat(pipeline.config().landingBucket(), o.key()).isEmpty()) {
          shared.put(pipeline.config().landingBucket(), o.key(), home.get(homeConfig.landingBucket(), o.key()),
              "application/x-ndjson");
        }
      }
    }
    pipeline.streamAll();
    pipeline.publish();
  }

  /** The home's main holds what this pipeline publishes, table by table of {@code ours} (the home's names now). */
  public void assertMainAsHere(SeedTables ours) {
    takeIn();
    SeedTables theirs = SeedTables.of(pipeline.config());
    List<TableName[]> pairs = List.of(new TableName[] {ours.rawEvents(), theirs.rawEvents()},
        new TableName[] {ours.rejected(), theirs.rejected()},
        new TableName[] {ours.rawCompanyChanges(), theirs.rawCompanyChanges()},
        new TableName[] {ours.events(), theirs.events()}, new TableName[] {ours.eventCounts(), theirs.eventCounts()},
        new TableName[] {ours.companies(), theirs.companies()},
        new TableName[] {ours.companyChanges(), theirs.companyChanges()});
    for (TableName[] t : pairs) {
      OtherHome.assertSameRows("main's " + t[0] + " and the reference's", tables.spark().table(tables.at(t[0], "main")),
          stack.spark().table(t[1].sqlAt(pipeline.published())));
    }
  }
}
