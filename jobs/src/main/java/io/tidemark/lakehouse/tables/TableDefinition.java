package io.tidemark.lakehouse.tables;

import io.tidemark.config.TableName;
import io.tidemark.core.Column;
import io.tidemark.core.Schema;
import io.tidemark.core.TableShape;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The expected shape of one table: columns with their Spark SQL types, and the partition transforms. */
public record TableDefinition(TableName name, Map<String, String> columns, List<String> partitioning,
                              String comment) {

  public TableDefinition {
    columns = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    partitioning = List.copyOf(partitioning);
  }

  /** A table of {@code shape}: its columns with their Spark SQL types, its partitioning and comment. */
  public TableDefinition(TableName name, TableShape shape) {
    this(name, columnsOf(shape.columns()), shape.partitioning(), shape.comment());
  }

  private static Map<String, String> columnsOf(Schema schema) {
    Map<String, String> columns = new LinkedHashMap<>();
    for (Column c : schema.columns()) {
      columns.put(c.name(), c.type().sql());
    }
    return columns;
  }

  /**
   * Properties every tidemark table gets: format v2, and no file deletion by Iceberg itself. Other Nessie
   * branches and tags still point at older metadata and data files; only Nessie's reference-aware GC may
   * remove them.
   */
  public static final Map<String, String> PROPERTIES = Map.of(
      "format-version", "2",
      "gc.enabled", "false",
      "write.metadata.delete-after-commit.enabled", "false");

  public String createSql() {
    String cols = columns.entrySet().stream()
        .map(e -> "`" + e.getKey() + "` " + e.getValue())
        .collect(Collectors.joining(", "));
    String props = PROPERTIES.entrySet().stream().sorted(Map.Entry.comparingByKey())
        .map(e -> "'" + e.getKey() + "'='" + e.getValue() + "'")
        .collect(Collectors.joining(", "));
    return "CREATE TABLE IF NOT EXISTS " + name.sql() + " (" + cols + ") USING iceberg"
        + (partitioning.isEmpty() ? "" : " PARTITIONED BY (" + String.join(", ", partitioning) + ")")
        + " COMMENT '" + comment.replace("'", "\\'") + "'"
        + " TBLPROPERTIES (" + props + ")";
  }
}
