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
                              String comment, Map<String, String> declared) {

  public TableDefinition {
    columns = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    partitioning = List.copyOf(partitioning);
    declared = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(declared));
  }

  /** A table of {@code shape}: its columns with their Spark SQL types, its partitioning and comment. */
  public TableDefinition(TableName name, TableShape shape) {
    this(name, columnsOf(shape.columns()), shape.partitioning(), shape.comment(), Map.of());
  }

  /**
   * The same, recording what the pipeline file declares of it ({@link io.tidemark.pipeline.Declarations}: the
   * parts, kept as {@code tidemark.declared.<part>} properties).
   */
  public TableDefinition declaring(Map<String, String> parts) {
    return new TableDefinition(name, columns, partitioning, comment, parts);
  }

  /** The properties a new table gets: {@link #PROPERTIES} and what the file declares of it. */
  public Map<String, String> properties() {
    Map<String, String> out = new java.util.TreeMap<>(PROPERTIES);
    declared.forEach((k, v) -> out.put(io.tidemark.pipeline.Declarations.PREFIX + k, v));
    return out;
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
    String props = properties().entrySet().stream()
        .map(e -> "'" + e.getKey() + "'='" + e.getValue().replace("'", "\\'") + "'")
        .collect(Collectors.joining(", "));
    return "CREATE TABLE IF NOT EXISTS " + name.sql() + " (" + cols + ") USING iceberg"
        + (partitioning.isEmpty() ? "" : " PARTITIONED BY (" + String.join(", ", partitioning) + ")")
        + " COMMENT '" + comment.replace("'", "\\'") + "'"
        + " TBLPROPERTIES (" + props + ")";
  }
}
