package io.tidemark.pipeline;

import io.tidemark.config.TableName;
import io.tidemark.core.Aggregation;
import io.tidemark.core.Column;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Times;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What the pipeline file declared of each table when it was made, kept in the table's properties
 * ({@code tidemark.declared.<part>}): the feed's columns, its key and time, a stream's watermark, an aggregate's
 * window, grouping and measures, a dimension's attributes and delete marker. A file changed under a running pipeline
 * is compared with it: a new feed or aggregate is new tables and a checkpoint of its own; a new optional column is
 * promoted as {@code tidemark evolve promote} does; anything that would change what a table or a checkpoint holds (a
 * key, a window, a watermark of a stateful stream, a column dropped or retyped, the tracked attributes, the delete
 * marker) is refused in one line saying what it would take.
 */
public final class Declarations {
  /** Before a part's name in a table's properties. */
  public static final String PREFIX = "tidemark.declared.";

  private Declarations() {}

  /** A table's declaration: its parts, by name, as text. */
  public record Declared(TableName table, String what, Map<String, String> parts) {
    public Map<String, String> properties() {
      Map<String, String> out = new LinkedHashMap<>();
      parts.forEach((k, v) -> out.put(PREFIX + k, v));
      return out;
    }
  }

  /** How a table's recorded declaration and the file's differ: columns to promote, or why it is refused. */
  public record Difference(Feed feed, List<Column> promoted, String refusal) {
    public boolean none() {
      return promoted.isEmpty() && refusal == null;
    }
  }

  /** Every table of the pipeline that keeps a declaration, with it. */
  public static Map<TableName, Declared> of(Pipeline p) {
    Map<TableName, Declared> out = new LinkedHashMap<>();
    for (FactFeed f : p.facts()) {
      put(out, new Declared(f.raw().table(), "the raw archive of " + f.name(), feed(f.schema())));
      Map<String, String> dedup = keyAndTime(f.schema());
      dedup.put("watermark", Times.show(f.dedupWatermark()));
      put(out, new Declared(f.dedupTable(), "the dedup of " + f.name(), dedup));
      for (Aggregate a : f.aggregates()) {
        Aggregation r = a.rule();
        Map<String, String> parts = new LinkedHashMap<>();
        parts.put("time", f.schema().eventTime().name());
        parts.put("window", Times.show(r.windows().size()));
        parts.put("watermark", Times.show(a.watermark()));
        parts.put("group-by", names(r.groupBy()));
        parts.put("window-start", r.windowStart().name());
        parts.put("measures", r.measures().stream().map(Object::toString).collect(Collectors.joining(", ")));
        put(out, new Declared(a.table(), "the aggregate " + a.name(), parts));
      }
    }
    for (DimensionFeed d : p.dimensions()) {
      put(out, new Declared(d.raw().table(), "the raw archive of " + d.name(), feed(d.schema())));
      Map<String, String> dim = keyAndTime(d.schema());
      dim.put("attributes", names(d.dimension().attributes()));
      dim.put("delete", d.dimension().delete() == null ? "none"
          : d.dimension().delete().column() + " = " + d.dimension().delete().sql());
      put(out, new Declared(d.table(), "the dimension " + d.name(), dim));
      put(out, new Declared(d.changes(), "the change log of " + d.name(), new LinkedHashMap<>(dim)));
    }
    return out;
  }

  private static void put(Map<TableName, Declared> out, Declared d) {
    out.put(d.table(), d);
  }

  private static Map<String, String> feed(FeedSchema s) {
    Map<String, String> parts = keyAndTime(s);
    parts.put("columns", s.columns().columns().stream().map(c -> c.name() + " " + c.type().fileName()
        + (s.isRequired(c) ? " required" : "")).collect(Collectors.joining(", ")));
    return parts;
  }

  private static Map<String, String> keyAndTime(FeedSchema s) {
    Map<String, String> parts = new LinkedHashMap<>();
    parts.put("key", s.keyList());
    parts.put("time", s.eventTime().name());
    return parts;
  }

  private static String names(List<Column> columns) {
    return columns.stream().map(Column::name).collect(Collectors.joining(", "));
  }

  /**
   * Why a table's recorded declaration and the file's part ways, for a stream about to write it (the table stays as
   * it is until bootstrap promotes or refuses the change), or null when they agree or nothing was recorded.
   */
  public static String stale(TableName table, Map<String, String> now, Map<String, String> recorded) {
    if (recorded.isEmpty()) {
      return null;
    }
    for (Map.Entry<String, String> e : now.entrySet()) {
      String old = recorded.get(e.getKey());
      if (old != null && !old.equals(e.getValue())) {
        return "the pipeline file changed " + table + "'s " + e.getKey() + " (" + old + " -> " + e.getValue()
            + ") since it was made: run tidemark bootstrap, which promotes a new optional column and says what "
            + "any other change would take";
      }
    }
    return null;
  }

  /** A table's recorded declaration, from its properties (empty for a table made before declarations were kept). */
  public static Map<String, String> recorded(Map<String, String> properties) {
    Map<String, String> out = new LinkedHashMap<>();
    properties.forEach((k, v) -> {
      if (k.startsWith(PREFIX)) {
        out.put(k.substring(PREFIX.length()), v);
      }
    });
    return out;
  }

  /**
   * How the file's declarations differ from what the tables recorded when they were made ({@code recorded}: each
   * existing table's recorded parts; a table that recorded nothing, made before declarations were kept, takes the
   * file's as it is): per feed, the columns to promote, or why the change is refused.
   */
  public static List<Difference> compare(Pipeline p, Map<TableName, Map<String, String>> recorded) {
    Map<TableName, Declared> now = of(p);
    List<Difference> out = new ArrayList<>();
    for (Feed feed : p.feeds()) {
      Declared raw = now.get(feed.raw().table());
      Map<String, String> rawWas = recorded.getOrDefault(raw.table(), Map.of());
      List<Column> promoted = new ArrayList<>();
      String refusal = null;
      String was = rawWas.get("columns");
      if (was != null && !was.equals(raw.parts().get("columns"))) {
        String why = columns(was, feed, promoted);
        refusal = why == null ? null : refusal(raw, why);
      }
      for (Declared d : now.values()) {
        if (refusal != null) {
          break;
        }
        if (!feedOf(p, d.table()).name().equals(feed.name())) {
          continue;
        }
        Map<String, String> before = recorded.getOrDefault(d.table(), Map.of());
        for (Map.Entry<String, String> e : d.parts().entrySet()) {
          String part = e.getKey();
          String old = before.get(part);
          if (old == null || old.equals(e.getValue()) || part.equals("columns")) {
            continue;
          }
          if (part.equals("attributes") && e.getValue().equals(old + promoted.stream().filter(c ->
              ((DimensionFeed) feed).dimension().attributes().contains(c)).map(c -> ", " + c.name())
              .collect(Collectors.joining()))) {
            continue; // a column promoted into a dimension is tracked
          }
          refusal = refusal(d, part.equals("attributes") ? "its tracked attributes changed from " + old + " to "
              + e.getValue() + ": the versions it holds were made by the old ones"
              : "its " + part + " changed from " + old + " to " + e.getValue() + ": " + why(part));
          break;
        }
      }
      if (refusal != null || !promoted.isEmpty()) {
        out.add(new Difference(feed, refusal == null ? promoted : List.of(), refusal));
      }
    }
    return out;
  }

  /** Why a column change is refused, or null when it only adds optional columns (into {@code promoted}). */
  private static String columns(String was, Feed feed, List<Column> promoted) {
    Map<String, String[]> before = new LinkedHashMap<>();
    for (String c : was.split(", ")) {
      before.put(c.split(" ")[0], c.split(" "));
    }
    for (String name : before.keySet()) {
      if (!feed.schema().declares(name)) {
        return "the column " + name + " was dropped from the file: its rows hold it";
      }
    }
    for (Column c : feed.schema().columns().columns()) {
      String[] b = before.get(c.name());
      if (b == null) {
        if (feed.schema().isRequired(c)) {
          return "the new column " + c.name() + " is required: the lines that landed before lack it (declare it "
              + "optional)";
        }
        promoted.add(c);
      } else if (!b[1].equals(c.type().fileName())) {
        return "the column " + c.name() + " was " + b[1] + " and is " + c.type().fileName()
            + " now: its rows hold the old type";
      }
    }
    return null;
  }

  private static String why(String part) {
    return switch (part) {
      case "key", "time" -> "the table and its stream's state hold records by the old one";
      case "watermark" -> "the stream's checkpoint holds state kept by the old delay";
      case "window", "group-by", "measures", "window-start" -> "the table holds windows made the old way";
      case "delete" -> "the versions the dimension holds were closed by the old marker";
      default -> "what the table holds was made by the old declaration";
    };
  }

  private static String refusal(Declared d, String why) {
    return "the pipeline file changed " + d.what() + " (" + d.table() + "): " + why + "; declare a new "
        + (d.what().startsWith("the aggregate") ? "aggregate" : "feed") + " (a name of its own: its own tables and "
        + "checkpoints), or put the file back (docs/pipeline.md#changing-a-running-pipeline)";
  }

  private static Feed feedOf(Pipeline p, TableName t) {
    for (Feed f : p.feeds()) {
      if (f.raw().table().equals(t)) {
        return f;
      }
      if (f instanceof FactFeed x && (x.dedupTable().equals(t)
          || x.aggregates().stream().anyMatch(a -> a.table().equals(t)))) {
        return f;
      }
      if (f instanceof DimensionFeed x && (x.table().equals(t) || x.changes().equals(t))) {
        return f;
      }
    }
    throw new IllegalArgumentException(t + " is none of the pipeline's tables");
  }
}
