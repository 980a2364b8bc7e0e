package io.tidemark.pipeline;

import io.tidemark.core.Column;
import io.tidemark.core.Schema;
import io.tidemark.core.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute;
import org.apache.spark.sql.catalyst.analysis.UnresolvedFunction;
import org.apache.spark.sql.catalyst.expressions.BinaryArithmetic;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Predicate;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.expressions.UnaryMinus;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.types.DataTypes;
import scala.collection.JavaConverters;
import scala.runtime.AbstractPartialFunction;

/**
 * The conditions of row expectations, read by Spark's own SQL parser ({@code CatalystSqlParser}: no SparkSession, so
 * {@code tidemark pipeline check} stays a parse) and checked for what can be told without one: the text is Spark SQL,
 * each column it names is a column of its feed, it calls nothing that is not deterministic, it reads no table, and it
 * is not plainly something other than a boolean. What only Spark's analyzer can tell (an unknown function, the
 * types of a function's result) is checked when a session is at hand ({@code Judgement.check}), before any stream
 * starts. A bad condition is one line naming its file, line and expectation.
 *
 * <p>Every stream reads a line on its own, at its own time, and must judge it as the others do; so in a condition
 * {@code current_timestamp()} (and {@code now()}, {@code current_date()}) is the moment the line's file landed (its
 * modification time in the landing zone), the same for every stream and every rerun.
 */
public final class Conditions {
  /** The column that holds when a line's file landed, which {@code current_timestamp()} in a condition reads. */
  public static final String LANDED_AT = "__landed_at";

  /** The functions that give the time now: in a condition, the time the line landed. */
  private static final Map<String, String> NOW = Map.of("current_timestamp", LANDED_AT, "now", LANDED_AT,
      "localtimestamp", LANDED_AT, "current_date", "to_date(" + LANDED_AT + ")", "curdate",
      "to_date(" + LANDED_AT + ")");

  /** Functions whose result is not the same every time a line is judged. */
  private static final Set<String> NOT_DETERMINISTIC = Set.of("rand", "randn", "random", "uuid", "shuffle",
      "monotonically_increasing_id", "spark_partition_id", "input_file_name", "input_file_block_start",
      "input_file_block_length", "current_user", "user", "session_user", "unix_timestamp", "try_reflect", "reflect",
      "java_method", "current_catalog", "current_database", "current_schema");

  private Conditions() {}

  /** Every row condition of the pipeline parsed and checked; a {@link PipelineException} for the first bad one. */
  public static void check(Pipeline p) {
    for (Feed f : p.feeds()) {
      for (Expectation e : f.expectations()) {
        if (e.isRow()) {
          parse(e, f.schema().columns());
        }
      }
    }
  }

  /**
   * A row expectation's condition as Spark's expression, the times now read as {@link #LANDED_AT}; a
   * {@link PipelineException} naming where it is declared when it is not right over {@code columns}.
   */
  public static Expression parse(Expectation e, Schema columns) {
    Expression parsed;
    try {
      parsed = org.apache.spark.sql.catalyst.parser.CatalystSqlParser$.MODULE$.parseExpression(e.condition());
    } catch (Exception x) {
      // Scala throws ParseException (checked in Java's eyes: an AnalysisException) without declaring it
      if (x instanceof ParseException p) {
        throw bad(e, "not Spark SQL: " + firstLine(p.getMessage()));
      }
      throw x instanceof RuntimeException r ? r : new IllegalStateException(x);
    }
    List<String> problems = new ArrayList<>();
    visit(parsed, columns, problems);
    if (!problems.isEmpty()) {
      throw bad(e, problems.get(0));
    }
    String notBoolean = plainlyNotBoolean(parsed, columns);
    if (notBoolean != null) {
      throw bad(e, "'" + e.condition() + "' is " + notBoolean + ", not a boolean (true: the row meets it)");
    }
    return parsed.transformUp(new AbstractPartialFunction<Expression, Expression>() {
      @Override
      public boolean isDefinedAt(Expression x) {
        return now(x) != null;
      }

      @Override
      public Expression apply(Expression x) {
        String replacement = now(x);
        return replacement == null ? x
            : org.apache.spark.sql.catalyst.parser.CatalystSqlParser$.MODULE$.parseExpression(replacement);
      }
    });
  }

  /** Whether a condition reads the time now (the landing time): a stream then reads the files' times too. */
  public static boolean readsNow(Expectation e) {
    return e.isRow() && now(e.condition());
  }

  private static boolean now(String condition) {
    String lower = condition.toLowerCase(Locale.ROOT);
    return NOW.keySet().stream().anyMatch(lower::contains);
  }

  /** What replaces an expression that gives the time now, or null. */
  private static String now(Expression x) {
    if (x instanceof UnresolvedFunction f && f.nameParts().size() == 1 && f.arguments().isEmpty()) {
      return NOW.get(f.nameParts().head().toLowerCase(Locale.ROOT));
    }
    if (x instanceof UnresolvedAttribute a && a.nameParts().size() == 1) {
      String name = a.nameParts().head().toLowerCase(Locale.ROOT);
      return name.equals("current_timestamp") || name.equals("current_date") || name.equals("localtimestamp")
          ? NOW.get(name) : null;
    }
    return null;
  }

  private static void visit(Expression x, Schema columns, List<String> problems) {
    if (x instanceof SubqueryExpression) {
      problems.add("a condition is over one row and reads no table (no subquery)");
      return;
    }
    if (x instanceof UnresolvedAttribute a && now(x) == null) {
      List<String> parts = JavaConverters.seqAsJavaList(a.nameParts());
      String name = String.join(".", parts);
      if (parts.size() != 1 || column(columns, parts.get(0)) == null) {
        problems.add("'" + name + "' is not a column of the feed (its columns: " + columns.names().stream()
            .collect(java.util.stream.Collectors.joining(", ")) + ")");
        return;
      }
    }
    if (x instanceof UnresolvedFunction f) {
      String name = String.join(".", JavaConverters.seqAsJavaList(f.nameParts())).toLowerCase(Locale.ROOT);
      if (NOT_DETERMINISTIC.contains(name)) {
        problems.add(name + "() is not deterministic: every stream judges a line on its own and must judge it alike");
        return;
      }
    }
    for (Expression child : JavaConverters.seqAsJavaList(x.children())) {
      visit(child, columns, problems);
    }
  }

  /** What the whole condition plainly is when it is no boolean (a number, a string, a column of another type). */
  private static String plainlyNotBoolean(Expression x, Schema columns) {
    if (x instanceof Predicate) {
      return null;
    }
    if (x instanceof BinaryArithmetic || x instanceof UnaryMinus) {
      return "arithmetic";
    }
    if (x instanceof Literal l && !l.dataType().equals(DataTypes.BooleanType) && !l.dataType()
        .equals(DataTypes.NullType)) {
      return "a constant of type " + l.dataType().simpleString();
    }
    if (x instanceof UnresolvedAttribute a && now(x) == null) {
      Column c = column(columns, a.nameParts().head());
      if (c != null && !c.type().equals(Type.BOOLEAN)) {
        return "the column " + c + ", " + c.type().phrase();
      }
    }
    if (now(x) != null) {
      return "a time";
    }
    return null;
  }

  /** The feed's column of that name (Spark's names are not case-sensitive), or null. */
  private static Column column(Schema columns, String name) {
    return columns.columns().stream().filter(c -> c.name().equalsIgnoreCase(name)).findFirst().orElse(null);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    for (String line : message.split("\n")) {
      if (!line.isBlank()) {
        return line.strip();
      }
    }
    return message.strip();
  }

  /** A bad condition, named where it is declared. */
  public static PipelineException bad(Expectation e, String what) {
    return new PipelineException((e.where() == null ? "the expectation " + e.name() : e.where()) + ": " + what);
  }
}
