package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.CrashPoints;
import io.tidemark.config.TableName;
import io.tidemark.core.Ingest;
import io.tidemark.core.Quarantine;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.lakehouse.tables.TableCatalog;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * The raw archive: every valid line as it arrived (events, or company changes), duplicates and late ones
 * included (no watermark), with its source file, arrival, batch and ingest time; and the quarantine: every line
 * that is not valid, with the reason. Together they account for every input line.
 */
public final class RawArchive {
  public static final String NAME = "raw";
  public static final String COMPANIES = "raw-companies";

  private RawArchive() {}

  /** The events' archive and quarantine. */
  public static RunReport run(SparkSession spark, String source, TableName rawTable, TableName rejectedTable,
                              String checkpoint) {
    return run(spark, source, rawTable, rejectedTable, checkpoint, CrashPoints.NONE);
  }

  public static RunReport run(SparkSession spark, String source, TableName rawTable, TableName rejectedTable,
                              String checkpoint, CrashPoints crash) {
    Preflight.check(spark, source, TableCatalog.rawEvents(rawTable), TableCatalog.rejected(rejectedTable));
    return run(spark, NAME, LineFormat.EVENTS, source, rawTable, rejectedTable, checkpoint, crash);
  }

  /** The company changes' archive and quarantine. */
  public static RunReport companies(SparkSession spark, String source, TableName rawTable, TableName rejectedTable,
                                    String checkpoint) {
    return companies(spark, source, rawTable, rejectedTable, checkpoint, CrashPoints.NONE);
  }

  public static RunReport companies(SparkSession spark, String source, TableName rawTable, TableName rejectedTable,
                                    String checkpoint, CrashPoints crash) {
    Preflight.check(spark, source, TableCatalog.rawCompanyChanges(rawTable), TableCatalog.rejected(rejectedTable));
    return run(spark, COMPANIES, LineFormat.COMPANY_CHANGES, source, rawTable, rejectedTable, checkpoint, crash);
  }

  private static RunReport run(SparkSession spark, String name, LineFormat format, String source, TableName rawTable,
                               TableName rejectedTable, String checkpoint, CrashPoints crash) {
    // in a streaming query current_timestamp() is the batch's timestamp from the offset log: a batch run
    // again after a crash gets the same ingest time
    Dataset<Row> lines = format.parse(LineFormat.read(spark, source))
        .withColumn(Ingest.INGEST_TS.name(), current_timestamp());
    Column[] archived = SparkRows.columns(format.feed().columns().plus(Ingest.SCHEMA));
    Column[] quarantined = SparkRows.columns(Quarantine.LINE_SCHEMA.plus(Ingest.SCHEMA));
    BatchCommitter committer = new BatchCommitter(name, checkpoint, rejectedTable, crash);
    return StreamRun.run(name, "row", StreamRun.availableNow(lines, checkpoint, (batch, id) -> {
      Dataset<Row> parsed = batch.persist(StorageLevel.MEMORY_AND_DISK());
      try {
        Dataset<Row> rows = parsed.withColumn(Ingest.BATCH_ID.name(), lit(id))
            .withColumn(Quarantine.DATASET.name(), lit(format.dataset()));
        Column reason = col(Quarantine.REASON.name());
        Map<TableName, Dataset<Row>> out = new LinkedHashMap<>();
        out.put(rawTable, rows.where(reason.isNull()).select(archived));
        out.put(rejectedTable, rows.where(reason.isNotNull()).select(quarantined));
        committer.append(id, out, BatchCommitter.Output.DERIVED);
      } finally {
        parsed.unpersist();
      }
    }), committer);
  }
}
