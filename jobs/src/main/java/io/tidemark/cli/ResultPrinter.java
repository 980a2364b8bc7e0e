package io.tidemark.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;

/**
 * Prints a query result for people (an aligned table) or for scripts (JSON or CSV). Values are rendered by
 * Spark itself (cast to string, or toJSON), so timestamps show in the session time zone, UTC.
 */
final class ResultPrinter {
  enum Format { table, json, csv }

  private final Format format;
  private final int maxRows;

  ResultPrinter(Format format, int maxRows) {
    this.format = format;
    this.maxRows = Math.max(0, maxRows);
  }

  /** Rows to {@code out}; a note on {@code err} when rows were left out, so that scripts can parse out. */
  void print(Dataset<Row> result, PrintWriter out, PrintWriter err) {
    String[] names = result.columns();
    if (format == Format.json) {
      List<String> rows = jsonRows(result, names);
      out.println("[");
      for (int i = 0; i < Math.min(rows.size(), maxRows); i++) {
        out.println("  " + rows.get(i) + (i < Math.min(rows.size(), maxRows) - 1 ? "," : ""));
      }
      out.println("]");
      out.flush();
      truncated(rows.size(), err);
      return;
    }
    List<String[]> rows = asStrings(result, names);
    if (format == Format.csv) {
      out.println(csvLine(names));
      for (int i = 0; i < Math.min(rows.size(), maxRows); i++) {
        out.println(csvLine(rows.get(i)));
      }
    } else if (names.length == 0) {
      out.println("OK");
    } else {
      table(names, rows.subList(0, Math.min(rows.size(), maxRows)), out);
      int shown = Math.min(rows.size(), maxRows);
      out.println("(" + shown + (rows.size() > maxRows ? "+" : "") + (shown == 1 ? " row)" : " rows)"));
    }
    out.flush();
    truncated(rows.size(), err);
  }

  /** One JSON object per row, every column in the query's order; Spark's toJSON would leave out the nulls. */
  private List<String> jsonRows(Dataset<Row> result, String[] names) {
    if (names.length == 0) {
      return List.of();
    }
    Dataset<Row> byPosition = byPosition(result);
    Column[] cols = new Column[names.length];
    for (int i = 0; i < names.length; i++) {
      cols[i] = byPosition.col("c" + i).as(names[i]);
    }
    return byPosition.select(functions.to_json(functions.struct(cols), Map.of("ignoreNullFields", "false")))
        .limit(maxRows + 1).as(Encoders.STRING()).collectAsList();
  }

  /** The columns renamed c0, c1, ...: a query may name two columns alike ({@code SELECT a.id, b.id}). */
  private static Dataset<Row> byPosition(Dataset<Row> result) {
    String[] names = new String[result.columns().length];
    for (int i = 0; i < names.length; i++) {
      names[i] = "c" + i;
    }
    return result.toDF(names);
  }

  private List<String[]> asStrings(Dataset<Row> result, String[] names) {
    Dataset<Row> byPosition = byPosition(result);
    List<Column> cols = new ArrayList<>();
    for (int i = 0; i < names.length; i++) {
      cols.add(byPosition.col("c" + i).cast("string"));
    }
    List<Row> collected = names.length == 0 ? List.of()
        : byPosition.select(cols.toArray(new Column[0])).limit(maxRows + 1).collectAsList();
    List<String[]> out = new ArrayList<>();
    for (Row r : collected) {
      String[] values = new String[names.length];
      for (int i = 0; i < names.length; i++) {
        values[i] = r.isNullAt(i) ? null : r.getString(i);
      }
      out.add(values);
    }
    return out;
  }

  private void truncated(int rows, PrintWriter err) {
    if (rows > maxRows) {
      err.println("tidemark: printed only the first " + maxRows + " rows; raise --max-rows to see more");
      err.flush();
    }
  }

  private static void table(String[] names, List<String[]> rows, PrintWriter out) {
    int[] width = new int[names.length];
    for (int i = 0; i < names.length; i++) {
      width[i] = names[i].length();
      for (String[] r : rows) {
        width[i] = Math.max(width[i], show(r[i]).length());
      }
    }
    StringBuilder sep = new StringBuilder();
    for (int w : width) {
      sep.append('+').append("-".repeat(w + 2));
    }
    sep.append('+');
    out.println(sep);
    out.println(row(names, width));
    out.println(sep);
    for (String[] r : rows) {
      out.println(row(r, width));
    }
    out.println(sep);
  }

  private static String row(String[] values, int[] width) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
      String v = show(values[i]);
      sb.append("| ").append(v).append(" ".repeat(width[i] - v.length() + 1));
    }
    return sb.append('|').toString();
  }

  private static String show(String v) {
    return v == null ? "NULL" : v.replace("\n", "\\n");
  }

  static String csvLine(String[] values) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        sb.append(',');
      }
      String v = values[i];
      if (v == null) {
        continue;
      }
      // a null is left empty; an empty string is quoted, so that a reader can tell them apart
      if (v.isEmpty() || v.contains(",") || v.contains("\"") || v.contains("\n") || v.contains("\r")) {
        sb.append('"').append(v.replace("\"", "\"\"")).append('"');
      } else {
        sb.append(v);
      }
    }
    return sb.toString();
  }
}
