package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.TableCatalog;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * The raw archive: every parsed event as it arrived, duplicates and late ones included (no watermark), with
 * its source file, arrival, batch and ingest time; and the quarantine: every line that is not a valid event,
 * with the reason. Together they account for every input line.
 */
public final class RawArchive {
  public static final String NAME = "raw";

  private RawArchive() {}

  public static RunReport run(SparkSession spark, String source, TableName rawTable, TableName rejectedTable,
                              String checkpoint) {
    Preflight.check(spark, source, TableCatalog.rawEvents(rawTable), TableCatalog.rejected(rejectedTable));
    // in a streaming query current_timestamp() is the batch's timestamp from the offset log: a batch run
    // again after a crash gets the same ingest time
    Dataset<Row> lines = EventLines.parse(EventLines.read(spark, source))
        .withColumn("ingest_ts", current_timestamp());
    BatchCommitter committer = new BatchCommitter(NAME, checkpoint);
    return StreamRun.run(NAME, "late row(s)", StreamRun.availableNow(lines, checkpoint, (batch, id) -> {
      Dataset<Row> parsed = batch.persist(StorageLevel.MEMORY_AND_DISK());
      try {
        Map<TableName, Dataset<Row>> out = new LinkedHashMap<>();
        out.put(rawTable, parsed.where(col("reason").isNull()).select(col("event_id"), col("company_id"),
            col("amount"), col("event_ts"), col("source_file"), col("arrival"), lit(id).as("batch_id"),
            col("ingest_ts")));
        out.put(rejectedTable, parsed.where(col("reason").isNotNull()).select(lit("events").as("dataset"),
            col("line"), col("reason"), col("source_file"), col("arrival"), lit(id).as("batch_id"),
            col("ingest_ts")));
        committer.append(id, out, BatchCommitter.Output.DERIVED);
      } finally {
        parsed.unpersist();
      }
    }), committer);
  }
}
