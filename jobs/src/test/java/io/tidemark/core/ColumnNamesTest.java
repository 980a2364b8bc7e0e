package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.Feed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.PipelineFile;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A column's name is written once: a feed's in the pipeline file that declares it (the seed's is
 * {@code pipelines/seed.yml}), the pipeline's own tables' in their declarations here in the core. Code elsewhere names
 * a column through the declaration, so that a pipeline of other feeds needs no code, and a column added to a table
 * (or renamed) is one change. Checked over the main sources outside the core: no string literal that is the name of a
 * column of the seed's file or of a core declaration where code names columns, and none inside SQL. The seed's
 * scenario ({@code land/SeedScenarios}, the seed's lines) is the one place besides the file that spells its columns.
 */
class ColumnNamesTest {
  private static final List<Class<?>> DECLARATIONS = List.of(Ingest.class, Quarantine.class, DimensionSchema.class,
      RestatementRecords.class, AuditRecords.class, BatchColumns.class, Rescued.class);
  /** The seed's lines, as its file declares them: the only main code besides the file that names its columns. */
  private static final Set<String> SEED_SCENARIO = Set.of("land/SeedScenarios.java");
  private static final Pattern LITERAL = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");
  /** Methods whose string arguments are column names (Spark's, Iceberg's expressions, rows). */
  private static final Pattern COLUMN_ARGUMENT = Pattern.compile("\\b(col|getAs|getField|fieldIndex|withColumn|"
      + "withColumnRenamed|as|alias|select|groupBy|orderBy|partitionBy|drop|join|where|equal|in|notIn|isNull|notNull|"
      + "greaterThan|greaterThanOrEqual|lessThan|lessThanOrEqual|withWatermark|lag|lead|sum|max|min|agg|"
      + "dropDuplicates|dropDuplicatesWithinWatermark)\\(\\s*(?:new String\\[] \\{\\s*)?\"(\\w+)\"");
  private static final Pattern SQL = Pattern.compile("\\b(SELECT|FROM|WHERE|ORDER BY|GROUP BY|PARTITION BY|MERGE|"
      + "INSERT|JOIN|USING|ON t\\.)\\b");

  /** The columns of the seed's file: its feeds', its aggregates' outputs, its dimensions' versions and logs. */
  static Set<String> seedNames() {
    Pipeline seed = PipelineFile.seed();
    Set<String> names = new TreeSet<>();
    for (Feed f : seed.feeds()) {
      names.addAll(f.schema().columns().names());
    }
    for (Aggregate a : seed.aggregates()) {
      names.addAll(a.rule().schema().names());
    }
    for (DimensionFeed d : seed.dimensions()) {
      names.addAll(d.dimension().version().names());
      names.addAll(d.dimension().logged().names());
    }
    return names;
  }

  static Set<String> names() throws IllegalAccessException {
    Set<String> names = new TreeSet<>(seedNames());
    for (Class<?> c : DECLARATIONS) {
      for (Field f : c.getFields()) {
        if (Modifier.isStatic(f.getModifiers()) && f.getType() == Column.class) {
          names.add(((Column) f.get(null)).name());
        }
      }
    }
    return names;
  }

  @Test
  void noColumnNameIsWrittenOutsideTheDeclarations() throws Exception {
    Set<String> names = names();
    assertThat(seedNames()).contains("company_id", "event_ts", "w_start", "n", "change_ts", "tier", "valid_from");
    assertThat(names).contains("ingest_ts", "rescued_data", "correction", "rows_written", "valid_to");
    Path main = Path.of("src/main/java/io/tidemark");
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(main)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java") && !p.startsWith(main.resolve("core"))
          && !SEED_SCENARIO.contains(main.relativize(p).toString())).toList()) {
        String code = withoutComments(Files.readString(f));
        String[] lines = code.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
          String line = lines[i];
          Matcher arg = COLUMN_ARGUMENT.matcher(line);
          while (arg.find()) {
            if (names.contains(arg.group(2))) {
              found.add(main.relativize(f) + ":" + (i + 1) + ": " + arg.group());
            }
          }
          Matcher lit = LITERAL.matcher(line);
          while (lit.find()) {
            String text = lit.group(1);
            boolean named = text.contains("_") && names.contains(text);
            boolean inSql = SQL.matcher(text).find() && names.stream().anyMatch(n -> inSql(text, n));
            if (named || inSql) {
              found.add(main.relativize(f) + ":" + (i + 1) + ": \"" + text + "\"");
            }
          }
        }
      }
    }
    assertThat(found).as("column names written outside the pipeline file and the core's declarations").isEmpty();
  }

  /**
   * Whether SQL text names the column: a name with an underscore anywhere as an identifier, a plain word where SQL
   * lists or compares columns (a message's "per arrival" is not a column).
   */
  private static boolean inSql(String text, String name) {
    String identifier = "(?:\\w+\\.)?" + Pattern.quote(name) + "(?![\\w'])";
    String where = name.contains("_") ? "(?<![\\w'.@%])" : "(?:^|SELECT |BY |WHERE |AND |OR |ON |, |\\(|= )\\s*";
    return Pattern.compile(where + identifier).matcher(text).find();
  }

  private static String withoutComments(String code) {
    // block comments kept as their newlines, so that line numbers stay
    Matcher m = Pattern.compile("/\\*.*?\\*/", Pattern.DOTALL).matcher(code);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(m.group().replaceAll("[^\n]", "")));
    }
    m.appendTail(out);
    StringBuilder lines = new StringBuilder();
    for (String line : out.toString().split("\n", -1)) {
      lines.append(beforeLineComment(line)).append('\n');
    }
    return lines.toString();
  }

  /** The line up to a {@code //} that is not inside a string ("s3a://..." is not a comment). */
  private static String beforeLineComment(String line) {
    boolean inString = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '\\' && inString) {
        i++;
      } else if (c == '"') {
        inString = !inString;
      } else if (!inString && c == '/' && i + 1 < line.length() && line.charAt(i + 1) == '/') {
        return line.substring(0, i);
      }
    }
    return line;
  }
}
