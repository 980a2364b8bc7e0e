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
import io.tidemark.core.ExpectationColumns;
import io.tidemark.lakehouse.tables.DriverWrites;
import io.tidemark.lakehouse.tables.IcebergTables;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
    return run(spark, name, LineFormat.of(feed), null, source, rawTable, rejectedTable, null, checkpoint, crash);
  }

  /**
   * The same, each valid line judged by the feed's row expectations ({@code judgement}): a line a drop or fail
   * expectation quarantines goes to the quarantine with the expectation as its reason; and what each batch found of
   * each expectation, per arrival, goes to {@code expectationsTable} with the batch, exactly once.
   */
  public static RunReport run(SparkSession spark, String name, FeedSchema feed, Judgement judgement, String source,
                              TableName rawTable, TableName rejectedTable, TableName expectationsTable,
                              String checkpoint, CrashPoints crash) {
    ExpectationCounts counts = new ExpectationCounts(judgement, name, feed.name());
    if (counts.counts()) {
      Preflight.check(spark, source, TableCatalog.raw(rawTable, feed), TableCatalog.rejected(rejectedTable),
          TableCatalog.expectations(expectationsTable));
    } else {
      Preflight.check(spark, source, TableCatalog.raw(rawTable, feed), TableCatalog.rejected(rejectedTable));
    }
    return run(spark, name, LineFormat.of(feed, judgement), counts.counts() ? counts : null, source, rawTable,
        rejectedTable, expectationsTable, checkpoint, crash);
  }

  private static RunReport run(SparkSession spark, String name, LineFormat format, ExpectationCounts counts,
                               String source, TableName rawTable, TableName rejectedTable,
                               TableName expectationsTable, String checkpoint, CrashPoints crash) {
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
        // one job counts what each table gets, the rows that carried rescued data (the batch's record has them) and,
        // per arrival, what the expectations found
        List<Column> aggregates = new ArrayList<>(List.of(count(when(reason.isNull(), lit(1))).as("__archived"),
            count(when(reason.isNotNull(), lit(1))).as("__quarantined"), count(col(Rescued.DATA.name()))
                .as("__rescued")));
        if (counts != null) {
          aggregates.addAll(counts.aggregates());
        }
        List<Row> perArrival = parsed.groupBy(col(Ingest.ARRIVAL.name()))
            .agg(aggregates.get(0), aggregates.subList(1, aggregates.size()).toArray(Column[]::new)).collectAsList();
        long archivedRows = perArrival.stream().mapToLong(r -> r.getLong(r.fieldIndex("__archived"))).sum();
        long quarantinedRows = perArrival.stream().mapToLong(r -> r.getLong(r.fieldIndex("__quarantined"))).sum();
        committer.rescued(id, perArrival.stream().mapToLong(r -> r.getLong(r.fieldIndex("__rescued"))).sum());
        Map<TableName, Dataset<Row>> out = new LinkedHashMap<>();
        out.put(rawTable, rows.where(reason.isNull()).select(archived));
        out.put(rejectedTable, rows.where(reason.isNotNull()).select(quarantined));
        committer.appendCounted(id, out, Map.of(rawTable, archivedRows, rejectedTable, quarantinedRows));
        if (counts != null) {
          List<List<Object>> found = counts.rows(id, perArrival);
          committer.commitCounted(spark, id, expectationsTable, found.size(), props -> DriverWrites.append(
              IcebergTables.load(spark, expectationsTable), ExpectationColumns.SCHEMA, found, props));
        }
      } finally {
        parsed.unpersist();
      }
    }), committer);
  }
}
