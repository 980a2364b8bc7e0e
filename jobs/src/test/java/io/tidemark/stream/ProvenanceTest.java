package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.CommitKeys;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The provenance read back from a real Iceberg table's snapshot history (a Hadoop table on local disk). */
class ProvenanceTest {
  @TempDir
  Path dir;

  private Table table() {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.IntegerType.get()));
    return new HadoopTables(new Configuration()).create(schema, PartitionSpec.unpartitioned(),
        dir.resolve("t").toUri().toString());
  }

  private static void commit(Table t, Map<String, String> props) {
    AppendFiles append = t.newFastAppend();
    props.forEach(append::set);
    append.commit();
  }

  @Test
  void aQueryIsFoundByItsNewestBatchAndEachBatchByItsSnapshot() {
    Table t = table();
    assertThat(Provenance.lastCommittedBatch(t, "q1")).as("an empty table").isEqualTo(-1);
    commit(t, Provenance.ofBatch("dedup", "q1", 0, 0, ""));
    commit(t, Provenance.ofBatch("dedup", "q1", 1, 60_000, ""));
    commit(t, Provenance.ofBatch("dedup", "q2", 0, 0, ""));
    commit(t, Provenance.ofRestatement("r1"));
    assertThat(Provenance.lastCommittedBatch(t, "q1")).isEqualTo(1);
    assertThat(Provenance.lastCommittedBatch(t, "q2")).isZero();
    assertThat(Provenance.lastCommittedBatch(t, "q3")).isEqualTo(-1);
    assertThat(Provenance.batchSnapshot(t, "q1", 1)).get()
        .satisfies(s -> assertThat(s.summary()).containsEntry(CommitKeys.WATERMARK, "1970-01-01T00:01:00Z"));
    assertThat(Provenance.batchSnapshot(t, "q1", 2)).isEmpty();
  }

  @Test
  void aRecordCommitKeepsTheNewestRecordedBatchOfEachQueryItHolds() {
    Table t = table();
    assertThat(Provenance.lastRecordedBatch(t, "q1")).as("an empty table").isEqualTo(-1);
    commit(t, Provenance.ofRecords(java.util.List.of("raw", "dedup"), Map.of("q1", 2L, "q2", 0L), "1"));
    commit(t, Provenance.ofRecords(java.util.List.of("dedup"), Map.of("q2", 3L), "2"));
    assertThat(Provenance.lastRecordedBatch(t, "q1")).isEqualTo(2);
    assertThat(Provenance.lastRecordedBatch(t, "q2")).isEqualTo(3);
    assertThat(Provenance.lastRecordedBatch(t, "q3")).isEqualTo(-1);
    assertThat(t.currentSnapshot().summary()).containsEntry(CommitKeys.STREAM, "dedup")
        .containsEntry(CommitKeys.ARRIVALS, "2");
  }

  @Test
  void theWatermarkIsTheNewestCommitOfThatStream() {
    Table t = table();
    commit(t, Provenance.ofBatch("windowed-counts", "q1", 3, Instant.parse("2026-01-01T00:10:00Z").toEpochMilli(), ""));
    commit(t, Provenance.ofBatch("windowed-counts", "q1", 4, Instant.parse("2026-01-01T00:20:00Z").toEpochMilli(), ""));
    commit(t, Provenance.ofRestatement("r1"));
    commit(t, Map.of());
    assertThat(Provenance.committedWatermark(t, "windowed-counts")).contains(Instant.parse("2026-01-01T00:20:00Z"));
    assertThat(Provenance.committedWatermark(t, "dedup")).isEmpty();
    assertThat(Provenance.madeBy(t.currentSnapshot(), CommitKeys.RESTATEMENT_STREAM)).isFalse();
    assertThat(Provenance.madeBy(t.snapshot(t.currentSnapshot().parentId()), CommitKeys.RESTATEMENT_STREAM)).isTrue();
  }

  @Test
  void onlyTheCurrentAncestryCounts() {
    Table t = table();
    commit(t, Provenance.ofBatch("dedup", "q1", 0, 0, ""));
    long before = t.currentSnapshot().snapshotId();
    commit(t, Provenance.ofBatch("dedup", "q1", 1, 0, ""));
    t.manageSnapshots().rollbackTo(before).commit();
    assertThat(Provenance.lastCommittedBatch(t, "q1")).as("a rolled-back batch is not committed").isZero();
  }
}
