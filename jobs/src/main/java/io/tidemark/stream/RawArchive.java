package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.when;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;

import io.tidemark.CrashPoints;
import io.tidemark.config.TableName;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Ingest;
import io.tidemark.core.Quarantine;
import io.tidemark.core.Rescued;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.lakehouse.tables.TableCatalog;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * The raw archive: every valid line of a feed as it arrived, duplicates and late ones
 * included (no watermark), with its source file, arrival, batch and ingest time, and what its typed columns do not
 * hold ({@link Rescued}: unknown keys, optional values that did not convert); and the quarantine: every line that is
 * not valid, with the reason. Together they account for every input line, and every key of every line. The feed is
 * read as its archive declares it when the run starts ({@link io.tidemark.lakehouse.tables.FeedDeclarations}): a field promoted since the last run
 * is a column from this run on, with the same checkpoint.
 */
public final class RawArchive {
  private RawArchive() {}

  /**
   * A feed's archive and the quarantine: one availableNow run of the stream {@code name} over the feed's lines under
   * {@code source}, with the feed as its archive declares it when the run starts ({@code feed}).
   */
  public static RunReport run(SparkSession spark, String name, FeedSchema feed, String source, TableName rawTable,
                              TableName rejectedTable, String checkpoint, CrashPoints crash) {
    Preflight.check(spark, source, TableCatalog.raw(rawTable, feed), TableCatalog.rejected(rejectedTable));
    return run(spark, name, LineFormat.of(feed), source, rawTable, rejectedTable, checkpoint, crash);
  }

  private static RunReport run(SparkSession spark, String name, LineFormat format, String source, TableName rawTable,
                               TableName rejectedTable, String checkpoint, CrashPoints crash) {
    // on a lost checkpoint, the files the archive and the quarantine hold already are not taken in twice
    Set<String> taken = LostCheckpoint.archivedFiles(spark, name, checkpoint, rawTable, rejectedTable,
        format.dataset());
    Dataset<Row> read = LineFormat.read(spark, source);
    if (!taken.isEmpty()) {
      read = read.where(not(col(Ingest.SOURCE_FILE.name()).isin(taken.toArray())));
    }
    // in a streaming query current_timestamp() is the batch's timestamp from the offset log: a batch run
    // again after a crash gets the same ingest time
    Dataset<Row> lines = format.parse(read).withColumn(Ingest.INGEST_TS.name(), current_timestamp());
    Column[] archived = SparkRows.columns(format.feed().columns().plus(Rescued.DATA).plus(Ingest.SCHEMA));
    Column[] quarantined = SparkRows.columns(Quarantine.LINE_SCHEMA.plus(Ingest.SCHEMA));
    BatchCommitter committer = new BatchCommitter(name, checkpoint, rejectedTable, crash).leavingOut(taken);
    return StreamRun.run(name, "row", StreamRun.availableNow(lines, checkpoint, (batch, id) -> {
      Dataset<Row> parsed = batch.persist(StorageLevel.MEMORY_AND_DISK());
      try {
        Dataset<Row> rows = parsed.withColumn(Ingest.BATCH_ID.name(), lit(id))
            .withColumn(Quarantine.DATASET.name(), lit(format.dataset()));
        Column reason = col(Quarantine.REASON.name());
        // one job counts what each table gets and the rows that carried rescued data (the batch's record has them)
        Row n = parsed.agg(count(when(reason.isNull(), lit(1))), count(when(reason.isNotNull(), lit(1))),
            count(col(Rescued.DATA.name()))).first();
        committer.rescued(id, n.getLong(2));
        Map<TableName, Dataset<Row>> out = new LinkedHashMap<>();
        out.put(rawTable, rows.where(reason.isNull()).select(archived));
        out.put(rejectedTable, rows.where(reason.isNotNull()).select(quarantined));
        committer.appendCounted(id, out, Map.of(rawTable, n.getLong(0), rejectedTable, n.getLong(1)));
      } finally {
        parsed.unpersist();
      }
    }), committer);
  }
}
