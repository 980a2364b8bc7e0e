package io.tidemark.lakehouse.nessie;

import io.tidemark.core.CommitKeys;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.SnapshotSummary;

/**
 * What a Nessie commit of an Iceberg snapshot tells a person reading the commit log: who made it (the stream or the
 * restatement, and the orchestrator's run when there is one) and what it did (batch, arrivals, rows, watermark).
 * Iceberg alone writes "Iceberg append against facts.events" by the OS user (Iceberg's SparkCatalog sets the
 * catalog's user to Spark's user, whatever the configuration says); the snapshot's tidemark provenance says much
 * more, so it is turned into the commit's author, message and properties.
 */
public record CommitStory(String author, String message, Map<String, String> properties) {
  /** Set by an orchestrator (e.g. Airflow: "airflow tidemark_arrivals/manual__2026-01-01T00:00:00"); optional. */
  public static final String RUN_CONTEXT_ENV = "TIDEMARK_RUN_CONTEXT";

  /**
   * The story of a snapshot committed to {@code table}, or empty when the snapshot carries no tidemark provenance
   * (a table created by hand, SQL typed by a person): those keep Iceberg's own message.
   */
  public static Optional<CommitStory> of(String table, String operation, Map<String, String> summary,
                                         String runContext) {
    String stream = summary.get(CommitKeys.STREAM);
    if (stream == null) {
      return Optional.empty();
    }
    String context = runContext == null || runContext.isBlank() ? "" : " [" + runContext.strip() + "]";
    String runId = summary.get(CommitKeys.RUN_ID);
    String author;
    StringBuilder msg = new StringBuilder();
    if (runId != null) {
      author = "tidemark-restate/" + runId + context;
      msg.append("restatement ").append(runId).append(": ");
    } else {
      author = "tidemark-stream/" + stream + context;
      msg.append(stream);
      String batch = summary.get(CommitKeys.BATCH_ID);
      if (batch != null) {
        msg.append(" batch ").append(batch);
      }
      String arrivals = summary.get(CommitKeys.ARRIVALS);
      if (arrivals != null && !arrivals.isBlank()) {
        msg.append(arrivals.contains(",") || arrivals.contains("-") ? " (arrivals " : " (arrival ")
            .append(arrivals).append(')');
      }
      msg.append(": ");
    }
    msg.append(operation == null ? "commit" : operation).append(' ').append(rows(summary)).append(' ')
        .append(preposition(operation)).append(' ').append(table);
    String watermark = summary.get(CommitKeys.WATERMARK);
    // the raw archives have no watermark, and a stream's first batch has none yet
    if (watermark != null && runId == null && !"0".equals(summary.get(CommitKeys.WATERMARK_MS))) {
      msg.append("; watermark ").append(watermark);
    }
    Map<String, String> props = new LinkedHashMap<>();
    summary.forEach((k, v) -> {
      if (k.startsWith(CommitKeys.PREFIX)) {
        props.put(k, v);
      }
    });
    if (!context.isEmpty()) {
      props.put(CommitKeys.RUN_CONTEXT, runContext.strip());
    }
    return Optional.of(new CommitStory(author, msg.toString(), props));
  }

  private static String rows(Map<String, String> summary) {
    long added = number(summary.get(SnapshotSummary.ADDED_RECORDS_PROP));
    long deleted = number(summary.get(SnapshotSummary.DELETED_RECORDS_PROP));
    return deleted == 0 ? added + " row(s)" : "+" + added + "/-" + deleted + " row(s)";
  }

  private static String preposition(String operation) {
    return DataOperations.APPEND.equals(operation) ? "to" : "in";
  }

  private static long number(String s) {
    try {
      return s == null ? 0 : Long.parseLong(s);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
