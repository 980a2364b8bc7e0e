package io.tidemark.fence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.tables.DriverWrites;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.testing.Seed;
import io.tidemark.testing.StackTest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.Test;

/**
 * An append that starts from the table as it was loaded, on the real Nessie catalog: it commits without asking the
 * catalog again, and when another writer committed to the table in between, Nessie refuses the first attempt and
 * the retry keeps both writers' rows.
 */
class AsLoadedIT extends StackTest {
  @Test
  void anAppendFromAStaleLoadKeepsTheOtherWritersCommit() {
    TableName name = fx.events("as_loaded");
    Table early = AsLoaded.of(IcebergTables.load(spark, name));
    DriverWrites.Appender late = new DriverWrites.Appender(early, Seed.EVENTS.columns());
    late.add(List.of(event(1)));

    // another writer, from a load of its own, commits first
    DriverWrites.append(IcebergTables.load(spark, name), Seed.EVENTS.columns(), List.of(event(2)),
        Map.of("by", "other"));
    late.commit(Map.of("by", "as-loaded"));

    assertThat(fx.eventRows(name)).hasSize(2).anyMatch(r -> r.startsWith("1|")).anyMatch(r -> r.startsWith("2|"));
    List<String> writers = new ArrayList<>();
    for (Snapshot s : SnapshotUtil.currentAncestors(IcebergTables.load(spark, name))) {
      writers.add(s.summary().get("by"));
    }
    assertThat(writers).as("newest first, each its own snapshot").containsExactly("as-loaded", "other");

    // a table just loaded: the commit needs no retry, and its metadata is what the catalog then holds
    Table fresh = AsLoaded.of(IcebergTables.load(spark, name));
    DriverWrites.append(fresh, Seed.EVENTS.columns(), List.of(event(3)), Map.of("by", "fresh"));
    Table reloaded = IcebergTables.load(spark, name);
    assertThat(reloaded.currentSnapshot().summary()).containsEntry("by", "fresh");
    assertThat(SnapshotUtil.currentAncestorIds(reloaded)).hasSize(3);
    assertThat(fx.eventRows(name)).hasSize(3);
  }

  private static List<Object> event(int id) {
    return Seed.event(id, "c" + id, 1.5, Instant.parse("2026-01-01T00:00:00Z"));
  }
}
