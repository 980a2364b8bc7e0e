package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.CrashPoints;
import io.tidemark.config.TableName;
import io.tidemark.lakehouse.Schemas;
import io.tidemark.lakehouse.TableCatalog;
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
        .withColumn("ingest_ts", current_timestamp());
    Column[] archived = Schemas.columns(Schemas.concat(format.schema(), Schemas.INGEST));
    Column[] quarantined = Schemas.columns(Schemas.concat(Schemas.REJECTED_LINE, Schemas.INGEST));
    BatchCommitter committer = new BatchCommitter(name, checkpoint, rejectedTable, crash);
    return StreamRun.run(name, "row", StreamRun.availableNow(lines, checkpoint, (batch, id) -> {
      Dataset<Row> parsed = batch.persist(StorageLevel.MEMORY_AND_DISK());
      try {
        Dataset<Row> rows = parsed.withColumn("batch_id", lit(id)).withColumn("dataset", lit(format.dataset()));
        Map<TableName, Dataset<Row>> out = new LinkedHashMap<>();
        out.put(rawTable, rows.where(col("reason").isNull()).select(archived));
        out.put(rejectedTable, rows.where(col("reason").isNotNull()).select(quarantined));
        committer.append(id, out, BatchCommitter.Output.DERIVED);
      } finally {
        parsed.unpersist();
      }
    }), committer);
  }
}
