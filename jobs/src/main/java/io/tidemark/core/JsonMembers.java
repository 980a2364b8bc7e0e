package io.tidemark.core;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The top-level members of a landed line, as Spark's JSON reader sees them: the same parser (Jackson) with the same
 * features as Spark's defaults (single quotes and NaN allowed), the root object read and whatever follows it ignored
 * (as Spark does). A member's value is kept as JSON text: numbers exactly as they were written (so {@code 1.50} stays
 * {@code 1.50} and a large integer keeps every digit), strings re-quoted with double quotes, objects and arrays
 * re-written compactly, and a non-finite number ({@code NaN}) as a string, which Spark converts to a double as it
 * does the number. So a value kept here is valid JSON that Spark and DuckDB both read.
 */
public final class JsonMembers {
  /** Spark's JSONOptions defaults, as they differ from Jackson's: allowSingleQuotes and allowNonNumericNumbers. */
  private static final JsonFactory FACTORY = JsonFactory.builder()
      .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES)
      .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
      .build();

  /** What a value is, as JSON says. */
  public enum Kind { STRING, INTEGER, FLOAT, BOOLEAN, NULL, OBJECT, ARRAY }

  /** A member: its key, its value as JSON text, and its kind. */
  public record Member(String key, String json, Kind kind) {
    public boolean isNull() {
      return kind == Kind.NULL;
    }
  }

  /** Which members a scan keeps: the others are skipped without their values being copied (the common case). */
  @FunctionalInterface
  public interface Wanted {
    boolean wants(String key);
  }

  private JsonMembers() {}

  /** Every member of the line, in order (a key given twice: the last value), or null when it is not a JSON object. */
  public static Map<String, Member> of(String line) {
    Map<String, Member> out = new LinkedHashMap<>();
    return scan(line, k -> true, out) ? out : null;
  }

  /**
   * Scans the line, keeping into {@code into} (by key, the last value of a key given twice) the members
   * {@code wanted} asks for. False when the line is not a JSON object (then {@code into} may hold some members).
   */
  public static boolean scan(String line, Wanted wanted, Map<String, Member> into) {
    if (line == null) {
      return false;
    }
    // a byte order mark before the object, as Spark's JSON source reads past it ({@link LineReader})
    try (JsonParser p = FACTORY.createParser(line.startsWith("\uFEFF") ? line.substring(1) : line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return false;
      }
      for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
        if (t != JsonToken.FIELD_NAME) {
          return false;
        }
        String key = p.currentName();
        JsonToken value = p.nextToken();
        if (value == null) {
          return false;
        }
        if (wanted.wants(key)) {
          into.put(key, value(p, key, value));
        } else {
          p.skipChildren();
        }
      }
      return true;
    } catch (IOException | RuntimeException e) {
      // Jackson's parse errors, and its stream constraints (a number or string too long): not an object Spark reads
      return false;
    }
  }

  private static Member value(JsonParser p, String key, JsonToken t) throws IOException {
    return switch (t) {
      case VALUE_STRING -> new Member(key, quoted(p.getText()), Kind.STRING);
      case VALUE_NUMBER_INT -> new Member(key, p.getText(), Kind.INTEGER);
      case VALUE_NUMBER_FLOAT -> {
        String text = p.getText();
        boolean finite = !p.isNaN();
        yield new Member(key, finite ? text : quoted(text), Kind.FLOAT);
      }
      case VALUE_TRUE, VALUE_FALSE -> new Member(key, p.getText(), Kind.BOOLEAN);
      case VALUE_NULL -> new Member(key, "null", Kind.NULL);
      case START_OBJECT, START_ARRAY -> {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(w)) {
          g.copyCurrentStructure(p);
        }
        yield new Member(key, w.toString(), t == JsonToken.START_OBJECT ? Kind.OBJECT : Kind.ARRAY);
      }
      default -> throw new IOException("unexpected " + t);
    };
  }

  /** A JSON object of these members, in their order: {@code {"k":v,...}}; null for none. */
  public static String object(Iterable<Member> members) {
    StringBuilder sb = new StringBuilder("{");
    for (Member m : members) {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append(quoted(m.key())).append(':').append(m.json());
    }
    return sb.length() == 1 ? null : sb.append('}').toString();
  }

  /** The text as a JSON string. */
  public static String quoted(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }

  /** The value of a string member as its text, any other as its JSON (what a person reads in a report). */
  public static String display(Member m) {
    if (m.kind() != Kind.STRING) {
      return m.json();
    }
    try (JsonParser p = FACTORY.createParser(m.json())) {
      p.nextToken();
      return p.getText();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
