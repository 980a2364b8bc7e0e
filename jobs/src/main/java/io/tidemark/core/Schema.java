package io.tidemark.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** Columns in order: a feed's, or a table's (which is built from the feeds'). */
public record Schema(List<Column> columns) {
  public Schema {
    columns = List.copyOf(columns);
    if (columns.stream().map(Column::name).distinct().count() != columns.size()) {
      throw new IllegalArgumentException("a column named twice: " + columns);
    }
  }

  public static Schema of(Column... columns) {
    return new Schema(List.of(columns));
  }

  /** These columns, then those of each of {@code more}. */
  public Schema plus(Schema... more) {
    List<Column> all = new ArrayList<>(columns);
    Arrays.stream(more).forEach(s -> all.addAll(s.columns));
    return new Schema(all);
  }

  public Schema plus(Column... more) {
    return plus(new Schema(List.of(more)));
  }

  public Schema plus(List<Column> more) {
    return plus(new Schema(more));
  }

  public int size() {
    return columns.size();
  }

  public List<String> names() {
    return columns.stream().map(Column::name).toList();
  }

  public String[] nameArray() {
    return names().toArray(new String[0]);
  }

  /** The column of that name; an error for a name the schema lacks. */
  public Column column(String name) {
    return columns.get(index(name));
  }

  public int index(String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no column " + name + " in " + this);
  }

  public int index(Column column) {
    return index(column.name());
  }

  public boolean has(Column column) {
    return columns.contains(column);
  }

  /** The column names, comma separated, for SQL. */
  public String columnList() {
    return String.join(", ", names());
  }

  /** {@code name TYPE, ...} in Spark SQL: a table's columns, or a schema Spark parses. */
  public String ddl() {
    return columns.stream().map(c -> c.name() + " " + c.type().sql()).collect(Collectors.joining(", "));
  }

  @Override
  public String toString() {
    return ddl();
  }
}
