package io.tidemark.bootstrap;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.Lander;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.pipeline.ExpectationVersions;
import io.tidemark.pipeline.Feed;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;

/**
 * Records the pipeline file's expectations of each feed in its raw archive ({@link ExpectationVersions#PROPERTY}), so
 * that Nessie versions the rules with the data they judged. A feed whose rules changed gets a new version, which
 * judges the arrivals from the one after the newest landed: an arrival already in the landing zone was landed under
 * the old rules, and its streams may have judged it already (a rerun must judge it alike). The streams refuse to run
 * while the file and the newest recorded version differ, so no arrival is ever judged by two versions.
 */
final class ExpectationRecord {
  private ExpectationRecord() {}

  /** Per raw archive whose record changed, what changed ({@code expectations v2 (from arrival 5)}). */
  static java.util.Map<String, String> record(SparkSession spark, Storage storage, TidemarkConfig config) {
    java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
    Lander lander = new Lander(storage, config.landingBucket(), "");
    for (Feed f : config.pipeline().feeds()) {
      Table raw = IcebergTables.load(spark, f.raw().table());
      ExpectationVersions recorded = ExpectationVersions.parse(raw.properties().get(ExpectationVersions.PROPERTY),
          f.raw().table().toString());
      if (recorded.isEmpty() && f.expectations().isEmpty()) {
        continue;
      }
      // a table made now has seen nothing: its first version judges every arrival, those landed before it too
      int from = recorded.isEmpty() && raw.currentSnapshot() == null ? 1 : lander.lastArrival(f.name()) + 1;
      ExpectationVersions next = recorded.then(f.expectations(), from);
      if (!next.equals(recorded)) {
        raw.updateProperties().set(ExpectationVersions.PROPERTY, next.json()).commit();
        out.put(f.raw().table().toString(), "expectations " + next.latest().label());
      }
    }
    return out;
  }
}
