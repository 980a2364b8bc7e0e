package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.TableCatalog;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
    Preflight.check(spark, source, TableCatalog.rawEvents(rawTable), TableCatalog.rejected(rejectedTable));
    return run(spark, NAME, LineFormat.EVENTS, source, rawTable, rejectedTable, checkpoint);
  }

  /** The company changes' archive and quarantine. */
  public static RunReport companies(SparkSession spark, String source, TableName rawTable, TableName rejectedTable,
                                    String checkpoint) {
    Preflight.check(spark, source, TableCatalog.rawCompanyChanges(rawTable), TableCatalog.rejected(rejectedTable));
    return run(spark, COMPANIES, LineFormat.COMPANY_CHANGES, source, rawTable, rejectedTable, checkpoint);
  }

  private static RunReport run(SparkSession spark, String name, LineFormat format, String source, TableName rawTable,
                               TableName rejectedTable, String checkpoint) {
    // in a streaming query current_timestamp() is the batch's timestamp from the offset log: a batch run
    // again after a crash gets the same ingest time
    Dataset<Row> lines = format.parse(LineFormat.read(spark, source))
        .withColumn("ingest_ts", current_timestamp());
    List<Column> archived = new ArrayList<>();
    for (String f : format.fields()) {
      archived.add(col(f));
    }
    BatchCommitter committer = new BatchCommitter(name, checkpoint);
    return StreamRun.run(name, "late row(s)", StreamRun.availableNow(lines, checkpoint, (batch, id) -> {
      Dataset<Row> parsed = batch.persist(StorageLevel.MEMORY_AND_DISK());
      try {
        Map<TableName, Dataset<Row>> out = new LinkedHashMap<>();
        List<Column> raw = new ArrayList<>(archived);
        raw.addAll(List.of(col("source_file"), col("arrival"), lit(id).as("batch_id"), col("ingest_ts")));
        out.put(rawTable, parsed.where(col("reason").isNull()).select(raw.toArray(new Column[0])));
        out.put(rejectedTable, parsed.where(col("reason").isNotNull()).select(lit(format.dataset()).as("dataset"),
            col("line"), col("reason"), col("source_file"), col("arrival"), lit(id).as("batch_id"),
            col("ingest_ts")));
        committer.append(id, out, BatchCommitter.Output.DERIVED);
      } finally {
        parsed.unpersist();
      }
    }), committer);
  }
}
