package io.tidemark.pipeline;

import io.tidemark.config.Durations;
import io.tidemark.config.TableName;
import io.tidemark.core.Aggregation;
import io.tidemark.core.Column;
import io.tidemark.core.DeleteMarker;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Ingest;
import io.tidemark.core.Measure;
import io.tidemark.core.Rescued;
import io.tidemark.core.Schema;
import io.tidemark.core.Type;
import io.tidemark.core.Windows;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * A pipeline file (YAML, {@code docs/pipeline.md}; its JSON Schema is {@code pipelines/pipeline.schema.json}) read
 * into a {@link Pipeline}, every field checked before anything runs: a file that is not right is one
 * {@link PipelineException} naming the file, the line, the field and what is wrong with it. The seed's file is
 * shipped inside the jar and is the default ({@link #seed}).
 */
public final class PipelineFile {
  /** The seed's file, as the jar carries it (the repository's {@code pipelines/seed.yml}). */
  public static final String SEED_RESOURCE = "/io/tidemark/pipeline/seed.yml";
  /** What messages call the seed's file. */
  public static final String SEED_NAME = "seed.yml (built in)";

  private static final Pattern FEED_NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");
  private static final Pattern STREAM_NAME = Pattern.compile("[a-z][a-z0-9_-]{0,62}");
  private static final Pattern COLUMN_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
  private static final Pattern EXPECTATION_NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");
  /** Columns the pipeline's own tables add beside a feed's, which a feed cannot take. */
  private static final Set<String> RESERVED = reserved();

  private final String source;

  private PipelineFile(String source) {
    this.source = source;
  }

  /** The seed pipeline. */
  public static Pipeline seed() {
    try (InputStream in = PipelineFile.class.getResourceAsStream(SEED_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the jar lacks " + SEED_RESOURCE + ": rebuild it (mvn package)");
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), SEED_NAME);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + SEED_RESOURCE + ": " + e.getMessage(), e);
    }
  }

  /** The pipeline a file declares. */
  public static Pipeline read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new PipelineException(file + ": no such file");
    } catch (IOException e) {
      throw new PipelineException(file + ": cannot be read (" + e.getMessage() + ")");
    }
    return parse(text, file.toString());
  }

  /** The pipeline a file's text declares; {@code source} names it in messages. */
  public static Pipeline parse(String text, String source) {
    Pipeline p = new PipelineFile(source).pipeline(text);
    // a condition that does not parse or names no column of its feed is refused with the file, before anything runs
    Conditions.check(p);
    return p;
  }

  // ---- the file

  private Pipeline pipeline(String text) {
    LoaderOptions options = new LoaderOptions();
    Node root;
    try {
      root = new Yaml(options).compose(new StringReader(text));
    } catch (MarkedYAMLException e) {
      int line = e.getProblemMark() == null ? 0 : e.getProblemMark().getLine() + 1;
      throw new PipelineException(source + ":" + line + ": not valid YAML: " + e.getProblem());
    } catch (YAMLException e) {
      throw new PipelineException(source + ": not valid YAML: " + e.getMessage());
    }
    if (root == null) {
      throw new PipelineException(source + ": the file is empty (see docs/pipeline.md)");
    }
    Obj top = obj(root, "");
    top.only("pipeline", "facts", "dimensions", "tables");
    String name = top.required("pipeline").text();
    if (!STREAM_NAME.matcher(name).matches()) {
      throw top.required("pipeline").bad("a pipeline's name is lowercase letters, digits, - and _, starting with "
          + "a letter");
    }
    List<FactFeed> facts = new ArrayList<>();
    List<DimensionFeed> dims = new ArrayList<>();
    Names names = new Names();
    for (Val f : top.list("facts")) {
      facts.add(fact(f.obj(), names));
    }
    for (Val d : top.list("dimensions")) {
      dims.add(dimension(d.obj(), names));
    }
    if (facts.isEmpty() && dims.isEmpty()) {
      throw top.bad("a pipeline declares one feed or more, under facts or dimensions");
    }
    Obj t = top.optionalObj("tables");
    SharedTables d = SharedTables.DEFAULTS;
    SharedTables shared = t == null ? d : new SharedTables(
        table(t, "rejected", d.rejected()), table(t, "stream_batches", d.streamBatches()),
        table(t, "restatement_log", d.restatementLog()), table(t, "restatement_plan", d.restatementPlan()),
        table(t, "audit_checks", d.auditChecks()), table(t, "expectations", d.expectations()));
    List<String> keys = SharedTables.FIELDS;
    if (t != null) {
      t.only(keys.toArray(new String[0]));
    }
    for (int i = 0; i < keys.size(); i++) {
      Val v = t == null ? null : t.get(keys.get(i));
      names.table(shared.all().get(i), v != null ? v : t != null ? t.self() : top.self());
    }
    return new Pipeline(name, source, facts, dims, shared);
  }

  private FactFeed fact(Obj f, Names names) {
    f.only("name", "columns", "key", "event_time", "raw", "dedup", "aggregates", "expectations");
    String feed = feedName(f, names);
    Schema columns = columns(f);
    List<Column> key = columnsOf(f, "key", columns, true);
    Column time = timestamp(f, "event_time", columns, "the event time");
    FeedSchema schema = schema(f, feed, columns, key, time);
    Feed.Stage rawStage = stage(rawOf(f), "raw-" + feed, "raw." + feed, names, f);
    Obj dedup = f.requiredObj("dedup");
    dedup.only("stream", "table", "watermark");
    Feed.Stage dedupStage = stage(dedup, "dedup-" + feed, "facts." + feed, names, f);
    Duration dedupWatermark = duration(dedup, "watermark");
    List<Aggregate> aggregates = new ArrayList<>();
    for (Val a : f.list("aggregates")) {
      aggregates.add(aggregate(a.obj(), feed, columns, names));
    }
    return new FactFeed(schema, rawStage, dedupStage, dedupWatermark, aggregates, expectations(f, columns));
  }

  private Aggregate aggregate(Obj a, String feed, Schema columns, Names names) {
    a.only("name", "table", "window", "watermark", "group_by", "window_start", "measures");
    Val nameVal = a.required("name");
    String name = nameVal.text();
    if (!STREAM_NAME.matcher(name).matches()) {
      throw nameVal.bad("an aggregate's name (its stream's) is lowercase letters, digits, - and _, starting with "
          + "a letter");
    }
    names.name(name, nameVal);
    names.stream(name, nameVal);
    if (a.get("window") == null) {
      throw a.bad("the aggregate " + name + " has no window: say how long its event-time windows are "
          + "(window: 5 minutes)");
    }
    Duration window = duration(a, "window");
    Duration watermark = duration(a, "watermark");
    List<Column> groupBy = columnsOf(a, "group_by", columns, true);
    for (Column g : groupBy) {
      if (g.type().equals(Type.DOUBLE)) {
        throw a.required("group_by").bad("cannot group by " + g + ", a double: two doubles that print alike may "
            + "differ; group by a decimal, an integer or a string");
      }
    }
    Val startVal = a.get("window_start");
    String start = startVal == null ? "window_start" : identifier(startVal, "window_start");
    List<Measure> measures = new ArrayList<>();
    List<Val> ms = a.list("measures");
    if (ms.isEmpty()) {
      throw a.bad("the aggregate " + name + " has no measures: give one or more ({name: n, function: count})");
    }
    Set<String> out = new HashSet<>();
    groupBy.forEach(g -> out.add(g.name().toLowerCase(Locale.ROOT)));
    if (!out.add(start.toLowerCase(Locale.ROOT))) {
      throw (startVal == null ? a.self() : startVal).bad("the window's start column " + start
          + " is named like a grouping column");
    }
    if (columns.names().stream().anyMatch(c -> c.equalsIgnoreCase(start))) {
      // a recount reading the feed's column of that name would read window starts instead
      throw (startVal == null ? a.self() : startVal).bad("the window's start column " + start + " is named like a "
          + "column of the feed " + feed + "; name it otherwise (window_start: ...)");
    }
    for (Val mv : ms) {
      Obj m = mv.obj();
      m.only("name", "function", "column");
      String mName = identifier(m.required("name"), "a measure");
      if (!out.add(mName.toLowerCase(Locale.ROOT))) {
        throw m.required("name").bad("the output column " + mName + " is named twice (the grouping columns, the "
            + "window's start and the measures name the aggregate's columns)");
      }
      Measure.Function fn;
      try {
        fn = Measure.Function.parse(m.required("function").text());
      } catch (IllegalArgumentException e) {
        throw m.required("function").bad(e.getMessage());
      }
      Column of = m.get("column") == null ? null : column(m, "column", columns);
      if (fn == Measure.Function.COUNT && of != null) {
        throw m.required("column").bad("count counts rows and takes no column");
      }
      if (fn != Measure.Function.COUNT && of == null) {
        throw m.bad(fn.fileName() + " needs a column (column: <a column of " + feed + ">)");
      }
      if (fn == Measure.Function.SUM && !of.type().isNumeric()) {
        throw m.required("column").bad("sum over " + of + ", " + of.type().phrase() + ": sum needs int, long, "
            + "double or decimal");
      }
      if (fn == Measure.Function.SUM && of.type().kind() == Type.Kind.DECIMAL
          && of.type().precision() + 10 > Type.MAX_PRECISION) {
        // Spark sums a decimal(p,s) as decimal(p+10,s) up to 38 digits, and past them gives null, not an error
        throw m.required("column").bad("sum over " + of + ", " + of.type().phrase() + ": its sum needs "
            + (of.type().precision() + 10) + " digits, more than the 38 a decimal holds; declare the column with a "
            + "precision of 28 or less");
      }
      if (of != null && !of.type().isOrdered()) {
        throw m.required("column").bad(fn.fileName() + " over " + of + ", " + of.type().phrase() + ": it needs a "
            + "number, a string, a date or a timestamp");
      }
      measures.add(new Measure(mName, fn, of));
    }
    Windows windows;
    try {
      windows = new Windows(window);
    } catch (IllegalArgumentException e) {
      throw a.required("window").bad(e.getMessage());
    }
    Aggregation rule = new Aggregation(windows, groupBy, Column.of(start, Type.TIMESTAMP), measures);
    TableName table = table(a, "table", TableName.parse("facts." + name.replace('-', '_')));
    names.table(table, a.get("table") == null ? a.self() : a.get("table"));
    return new Aggregate(name, feed, table, watermark, rule);
  }

  /** The column a field names, which must be a timestamp: what watermarks and versions are on. */
  private Column timestamp(Obj o, String field, Schema columns, String what) {
    Column time = column(o, field, columns);
    if (!time.type().equals(Type.TIMESTAMP)) {
      throw o.required(field).bad(what + " " + time + " is " + time.type().phrase() + "; it must be a timestamp");
    }
    return time;
  }

  private DimensionFeed dimension(Obj d, Names names) {
    d.only("name", "columns", "key", "change_time", "attributes", "delete", "watermark", "raw", "scd2",
        "expectations");
    String feed = feedName(d, names);
    Schema columns = columns(d);
    List<Column> key = columnsOf(d, "key", columns, true);
    Column time = timestamp(d, "change_time", columns, "the change time");
    FeedSchema schema = schema(d, feed, columns, key, time);
    DeleteMarker marker = null;
    Obj del = d.optionalObj("delete");
    if (del != null) {
      del.only("column", "value");
      Column c = column(del, "column", columns);
      if (key.contains(c) || c.equals(time)) {
        throw del.required("column").bad("the delete marker " + c + " is the key or the change time");
      }
      Val v = del.required("value");
      Object value;
      try {
        value = c.type().valueOf(v.text());
      } catch (RuntimeException e) {
        throw v.bad("the delete marker's value '" + v.text() + "' is not " + c.type().phrase() + " as " + c + " is");
      }
      marker = new DeleteMarker(c, value);
    }
    DeleteMarker m = marker;
    List<Column> attributes;
    if (d.get("attributes") == null) {
      attributes = columns.columns().stream().filter(c -> !key.contains(c) && !c.equals(time)
          && (m == null || !c.equals(m.column()))).toList();
    } else {
      attributes = columnsOf(d, "attributes", columns, false);
      for (Column a : attributes) {
        if (key.contains(a) || a.equals(time) || m != null && a.equals(m.column())) {
          throw d.required("attributes").bad(a + " is the key, the change time or the delete marker, not an "
              + "attribute");
        }
      }
    }
    for (Column a : attributes) {
      for (Column v : List.of(DimensionSchema.VALID_FROM, DimensionSchema.VALID_TO, DimensionSchema.IS_CURRENT)) {
        if (a.name().equalsIgnoreCase(v.name())) {
          throw d.required("attributes").bad("the attribute " + a + " is named like the dimension's own column " + v);
        }
      }
    }
    Duration watermark = duration(d, "watermark");
    Feed.Stage raw = stage(rawOf(d), "raw-" + feed, "raw." + feed, names, d);
    Obj scd2 = d.optionalObj("scd2");
    if (scd2 != null) {
      scd2.only("stream", "table", "changes_table");
    }
    String stream = streamOf(scd2, "scd2-" + feed, names, d);
    TableName table = table(scd2, "table", TableName.parse("dims." + feed));
    TableName changes = table(scd2, "changes_table", TableName.parse("dims." + feed + "_changes"));
    names.table(table, scd2 == null || scd2.get("table") == null ? d.self() : scd2.get("table"));
    names.table(changes, scd2 == null || scd2.get("changes_table") == null ? d.self() : scd2.get("changes_table"));
    DimensionSchema dimension;
    try {
      dimension = new DimensionSchema(schema, attributes, marker);
    } catch (IllegalArgumentException e) {
      throw d.bad(e.getMessage());
    }
    return new DimensionFeed(dimension, raw, stream, table, changes, watermark, expectations(d, columns));
  }

  /**
   * A feed's expectations: each a name, one of {@code condition} (a row's), {@code rows}, {@code nulls} or
   * {@code dropped} (an arrival's), and an action (default warn). A condition is checked here for what needs no
   * parser (that it is one line of text); {@link Conditions} parses it and checks its columns.
   */
  private List<Expectation> expectations(Obj f, Schema columns) {
    List<Expectation> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (Val v : f.list("expectations")) {
      Obj e = v.obj();
      e.only("name", "condition", "rows", "nulls", "dropped", "action");
      Val nameVal = e.required("name");
      String name = nameVal.text();
      if (!EXPECTATION_NAME.matcher(name).matches()) {
        throw nameVal.bad("an expectation's name (the reason its rows are quarantined with) is lowercase letters, "
            + "digits and _, starting with a letter");
      }
      if (!names.add(name)) {
        throw nameVal.bad("two expectations named " + name + " in one feed");
      }
      List<String> kinds = new ArrayList<>();
      for (Expectation.Kind k : Expectation.Kind.values()) {
        if (e.get(k.field()) != null) {
          kinds.add(k.field());
        }
      }
      if (kinds.size() != 1) {
        throw e.bad("the expectation " + name + " needs " + (kinds.isEmpty() ? "one" : "only one") + " of condition "
            + "(a Spark SQL boolean over each row), rows, nulls or dropped (bounds over an arrival)"
            + (kinds.isEmpty() ? "" : ", not " + String.join(" and ", kinds)));
      }
      Expectation.Kind kind = Expectation.Kind.ofField(kinds.get(0));
      Val actionVal = e.get("action");
      Expectation.Action action = Expectation.Action.WARN;
      if (actionVal != null) {
        try {
          action = Expectation.Action.parse(actionVal.text());
        } catch (IllegalArgumentException x) {
          throw actionVal.bad(x.getMessage());
        }
        if (action == Expectation.Action.DROP && kind != Expectation.Kind.ROW) {
          throw actionVal.bad("drop drops rows; an arrival expectation (" + kind.field() + ") warns or fails");
        }
      }
      Val body = e.required(kind.field());
      String where = source + ":" + body.line() + ": " + body.path;
      out.add(switch (kind) {
        case ROW -> {
          // a condition folded over several lines of the file is one line in messages and the record
          String condition = body.text().strip().replaceAll("\\s*\\R\\s*", " ");
          if (condition.isEmpty()) {
            throw body.bad("a condition is Spark SQL, a boolean over the feed's columns");
          }
          yield new Expectation(name, kind, action, condition, null, null, null, null, where);
        }
        case ROWS -> {
          Obj r = body.obj();
          r.only("min", "max");
          Long min = count(r, "min");
          Long max = count(r, "max");
          if (min == null && max == null) {
            throw body.bad("give min, max or both: rows: {min: 1, max: 1000000}");
          }
          if (min != null && max != null && min > max) {
            throw body.bad("min " + min + " is more than max " + max);
          }
          yield new Expectation(name, kind, action, null, null, min, max, null, where);
        }
        case NULLS -> {
          Obj n = body.obj();
          n.only("column", "at_most");
          Column c = column(n, "column", columns);
          yield new Expectation(name, kind, action, null, c.name(), null, null, share(n), where);
        }
        case DROPPED -> {
          Obj n = body.obj();
          n.only("at_most");
          yield new Expectation(name, kind, action, null, null, null, null, share(n), where);
        }
      });
    }
    return out;
  }

  private static Long count(Obj o, String field) {
    Val v = o.get(field);
    if (v == null) {
      return null;
    }
    try {
      long n = Long.parseLong(v.text());
      if (n < 0) {
        throw v.bad("a count of rows is 0 or more, got " + n);
      }
      return n;
    } catch (NumberFormatException x) {
      throw v.bad("expected a count of rows, got '" + v.text() + "'");
    }
  }

  /** {@code at_most}: a share from 0 to 1, or a percentage ({@code 5%}). */
  private static double share(Obj o) {
    Val v = o.required("at_most");
    String text = v.text().strip();
    try {
      double share = text.endsWith("%") ? Double.parseDouble(text.substring(0, text.length() - 1).strip()) / 100
          : Double.parseDouble(text);
      if (!(share >= 0 && share <= 1)) {
        throw v.bad("a share is from 0 to 1 (or 0% to 100%), got " + text);
      }
      return share;
    } catch (NumberFormatException x) {
      throw v.bad("expected a share such as 0.05 or 5%, got '" + text + "'");
    }
  }

  // ---- the parts

  private String feedName(Obj f, Names names) {
    Val v = f.required("name");
    String name = v.text();
    if (!FEED_NAME.matcher(name).matches()) {
      throw v.bad("a feed's name (its landing directory) is lowercase letters, digits and _, starting with a "
          + "letter");
    }
    names.name(name, v);
    return name;
  }

  private Schema columns(Obj f) {
    List<Val> list = f.list("columns");
    if (list.isEmpty()) {
      throw f.bad("a feed declares its columns: columns: [{name: id, type: string, required: true}, ...]");
    }
    List<Column> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (Val v : list) {
      Obj c = v.obj();
      Val typeVal = c.get("type");
      if (typeVal != null && typeVal.node instanceof ScalarNode t && t.getValue().matches("(?i)\\s*decimal\\(\\s*\\d*")) {
        // {name: x, type: decimal(10,2)} in YAML's flow style: the comma ended the type
        throw typeVal.bad("decimal(p,s) inside {...} must be quoted, its comma ends the value: type: \"decimal(10,2)\"");
      }
      c.only("name", "type", "required");
      String name = identifier(c.required("name"), "a column");
      if (RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
        throw c.required("name").bad("the column " + name + " is named like one the raw archive adds ("
            + String.join(", ", RESERVED) + ")");
      }
      if (!seen.add(name.toLowerCase(Locale.ROOT))) {
        throw c.required("name").bad("the column " + name + " is declared twice");
      }
      Type type;
      try {
        type = Type.parse(c.required("type").text());
      } catch (IllegalArgumentException e) {
        throw c.required("type").bad(e.getMessage());
      }
      out.add(Column.of(name, type));
    }
    return new Schema(out);
  }

  private FeedSchema schema(Obj f, String feed, Schema columns, List<Column> key, Column time) {
    List<Column> required = new ArrayList<>();
    List<Val> list = f.list("columns");
    for (int i = 0; i < list.size(); i++) {
      Obj c = list.get(i).obj();
      Column col = columns.columns().get(i);
      Val r = c.get("required");
      boolean must = key.contains(col) || col.equals(time);
      boolean declared = r != null && r.bool();
      if (r != null && !declared && must) {
        throw r.bad(col + " is " + (key.contains(col) ? "in the key" : "the event time") + ", which every line "
            + "must have: it is always required");
      }
      if (must || declared) {
        required.add(col);
      }
    }
    return new FeedSchema(feed, columns, key, time, required);
  }

  private List<Column> columnsOf(Obj f, String field, Schema columns, boolean nonEmpty) {
    Val v = f.required(field);
    List<Val> names = v.isList() ? v.items() : List.of(v);
    if (names.isEmpty() && nonEmpty) {
      throw v.bad("name one column or more");
    }
    List<Column> out = new ArrayList<>();
    for (Val n : names) {
      Column c = columnNamed(n, columns);
      if (out.contains(c)) {
        throw n.bad(c + " is named twice");
      }
      if (field.equals("key") && c.type().equals(Type.DOUBLE)) {
        throw n.bad("a key cannot hold a double (" + c + "): two doubles that print alike may differ");
      }
      out.add(c);
    }
    return out;
  }

  private Column column(Obj f, String field, Schema columns) {
    return columnNamed(f.required(field), columns);
  }

  private Column columnNamed(Val v, Schema columns) {
    String name = v.text();
    for (Column c : columns.columns()) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    throw v.bad("'" + name + "' is not a column of the feed (its columns: " + columns.columnList() + ")");
  }

  private static Obj rawOf(Obj feed) {
    Obj raw = feed.optionalObj("raw");
    if (raw != null) {
      raw.only("stream", "table");
    }
    return raw;
  }

  /** A raw or dedup stage: its stream and table ({@code s} null: the defaults). */
  private Feed.Stage stage(Obj s, String stream, String table, Names names, Obj owner) {
    String name = streamOf(s, stream, names, owner);
    TableName t = table(s, "table", TableName.parse(table));
    names.table(t, s == null || s.get("table") == null ? owner.self() : s.get("table"));
    return new Feed.Stage(name, t);
  }

  private String streamOf(Obj s, String fallback, Names names, Obj owner) {
    Val v = s == null ? null : s.get("stream");
    String name = v == null ? fallback : v.text();
    Val at = v == null ? owner.self() : v;
    if (!STREAM_NAME.matcher(name).matches() || name.equals("all")) {
      throw at.bad("a stream's name (its checkpoint's directory) is lowercase letters, digits, - and _, starting "
          + "with a letter, and not 'all'");
    }
    names.stream(name, at);
    return name;
  }

  private TableName table(Obj o, String field, TableName fallback) {
    Val v = o == null ? null : o.get(field);
    if (v == null) {
      return fallback;
    }
    try {
      return TableName.parse(v.text());
    } catch (IllegalArgumentException e) {
      throw v.bad(e.getMessage());
    }
  }

  private Duration duration(Obj o, String field) {
    Val v = o.required(field);
    try {
      return Durations.parse(v.text());
    } catch (IllegalArgumentException e) {
      throw v.bad("expected a duration such as '10 minutes', '30 seconds', '1 hour' or '1 day', got '" + v.text()
          + "'");
    }
  }

  private String identifier(Val v, String what) {
    String name = v.text();
    if (!COLUMN_NAME.matcher(name).matches()) {
      throw v.bad(what + "'s name '" + name + "' is not a plain SQL identifier (letters, digits, _; not starting "
          + "with a digit)");
    }
    if (SQL_WORDS.contains(name.toLowerCase(Locale.ROOT))) {
      throw v.bad(what + "'s name '" + name + "' is a word SQL reserves, which the audits' SQL cannot take as a "
          + "column's name; name it otherwise (e.g. " + name + "_)");
    }
    if (name.startsWith("__")) {
      throw v.bad(what + "'s name '" + name + "' starts with __, which tidemark's plans keep for their own columns");
    }
    return name;
  }

  /**
   * The words DuckDB's parser does not take as a bare column name (its reserved and type-or-function keywords, from
   * {@code duckdb_keywords()}; Spark's reserved words are among them): the audits recompute in DuckDB with the
   * columns' names as written.
   */
  private static final Set<String> SQL_WORDS = Set.of("all", "analyse", "analyze", "and", "any", "array", "as",
      "asc", "asymmetric", "both", "case", "cast", "check", "collate", "column", "constraint", "create", "default",
      "deferrable", "desc", "describe", "distinct", "do", "else", "end", "except", "false", "fetch", "for", "foreign",
      "from", "group", "having", "in", "initially", "intersect", "into", "lambda", "lateral", "leading", "limit",
      "not", "null", "offset", "on", "only", "or", "order", "pivot", "pivot_longer", "pivot_wider", "placing",
      "primary", "qualify", "references", "returning", "select", "show", "some", "summarize", "symmetric", "table",
      "then", "to", "trailing", "true", "union", "unique", "unpivot", "using", "variadic", "when", "where", "window",
      "with", "anti", "asof", "at", "authorization", "binary", "by", "collation", "columns", "concurrently", "cross",
      "freeze", "full", "generated", "glob", "ilike", "inner", "is", "isnull", "join", "left", "like", "map",
      "natural", "notnull", "outer", "overlaps", "positional", "right", "semi", "similar", "struct", "tablesample",
      "try_cast", "tuple", "unpack", "verbose");

  private static Set<String> reserved() {
    Set<String> out = new java.util.TreeSet<>(Ingest.SCHEMA.names());
    out.add(Rescued.DATA.name());
    return out;
  }

  /** Names that must be unique across the file: feeds and aggregates, streams, tables. */
  private static final class Names {
    private final Map<String, Val> names = new HashMap<>();
    private final Map<String, Val> streams = new HashMap<>();
    private final Map<TableName, Val> tables = new HashMap<>();

    void name(String name, Val at) {
      Val before = names.putIfAbsent(name, at);
      if (before != null) {
        throw at.bad("the name " + name + " is taken already (line " + before.line() + "): feeds and aggregates "
            + "each need a name of their own");
      }
    }

    void stream(String name, Val at) {
      Val before = streams.putIfAbsent(name, at);
      if (before != null) {
        throw at.bad("two streams named " + name + " (the other at line " + before.line() + "): each stream needs "
            + "a checkpoint of its own");
      }
    }

    void table(TableName t, Val at) {
      TableName lower = new TableName(t.namespace().toLowerCase(Locale.ROOT), t.table().toLowerCase(Locale.ROOT));
      Val before = tables.putIfAbsent(lower, at);
      if (before != null && before != at) {
        throw at.bad("two tables named " + t + " (the other at line " + before.line() + ")");
      }
    }
  }

  // ---- YAML nodes with where they are

  private Obj obj(Node n, String path) {
    return new Val(n, path).obj();
  }

  /** A value of the file: its node and its path from the top ({@code facts[events].dedup.watermark}). */
  private final class Val {
    final Node node;
    final String path;

    Val(Node node, String path) {
      this.node = node;
      this.path = path;
    }

    int line() {
      return node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
    }

    PipelineException bad(String what) {
      return new PipelineException(source + ":" + line() + ": " + (path.isEmpty() ? "" : path + ": ") + what);
    }

    String text() {
      if (!(node instanceof ScalarNode s)) {
        throw bad("expected a single value, got " + kind());
      }
      return s.getValue();
    }

    boolean bool() {
      return switch (text().toLowerCase(Locale.ROOT)) {
        case "true" -> true;
        case "false" -> false;
        default -> throw bad("expected true or false, got '" + text() + "'");
      };
    }

    boolean isList() {
      return node instanceof SequenceNode;
    }

    List<Val> items() {
      if (!(node instanceof SequenceNode s)) {
        throw bad("expected a list, got " + kind());
      }
      List<Val> out = new ArrayList<>();
      for (int i = 0; i < s.getValue().size(); i++) {
        Node item = s.getValue().get(i);
        out.add(new Val(item, path + "[" + label(item, i) + "]"));
      }
      return out;
    }

    Obj obj() {
      if (!(node instanceof MappingNode m)) {
        throw bad("expected fields (key: value), got " + kind());
      }
      Map<String, Val> fields = new LinkedHashMap<>();
      for (NodeTuple t : m.getValue()) {
        String key = t.getKeyNode() instanceof ScalarNode s ? s.getValue() : String.valueOf(t.getKeyNode());
        Val v = new Val(t.getValueNode(), path.isEmpty() ? key : path + "." + key);
        Val before = fields.put(key, v);
        if (before != null) {
          throw new Val(t.getKeyNode(), v.path).bad(key + " is given twice (first at line " + before.line() + ")");
        }
      }
      return new Obj(this, fields);
    }

    private String kind() {
      return node instanceof MappingNode ? "fields" : node instanceof SequenceNode ? "a list" : "'"
          + ((ScalarNode) node).getValue() + "'";
    }
  }

  /** A list item's label in a path: its name when it has one, else its position. */
  private static String label(Node item, int i) {
    if (item instanceof MappingNode m) {
      for (NodeTuple t : m.getValue()) {
        if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals("name")
            && t.getValueNode() instanceof ScalarNode v) {
          return v.getValue();
        }
      }
    }
    return Integer.toString(i);
  }

  /** A mapping of the file: its fields by key. */
  private final class Obj {
    private final Val self;
    private final Map<String, Val> fields;

    Obj(Val self, Map<String, Val> fields) {
      this.self = self;
      this.fields = fields;
    }

    Val self() {
      return self;
    }

    PipelineException bad(String what) {
      return self.bad(what);
    }

    Val get(String key) {
      Val v = fields.get(key);
      return v == null || v.node instanceof ScalarNode s && s.getTag().getValue().endsWith(":null") ? null : v;
    }

    Val required(String key) {
      Val v = get(key);
      if (v == null) {
        throw self.bad("missing " + key + " (see docs/pipeline.md)");
      }
      return v;
    }

    Obj optionalObj(String key) {
      Val v = get(key);
      return v == null ? null : v.obj();
    }

    Obj requiredObj(String key) {
      return required(key).obj();
    }

    List<Val> list(String key) {
      Val v = get(key);
      return v == null ? List.of() : v.items();
    }

    void only(String... allowed) {
      onlyOf(Set.of(allowed));
    }

    void onlyOf(Set<String> allowed) {
      for (Map.Entry<String, Val> e : fields.entrySet()) {
        if (!allowed.contains(e.getKey())) {
          throw new Val(e.getValue().node, e.getValue().path).bad("unknown field (expected "
              + String.join(", ", new java.util.TreeSet<>(allowed)) + ")");
        }
      }
    }
  }
}
