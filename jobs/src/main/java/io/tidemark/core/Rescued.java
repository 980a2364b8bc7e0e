package io.tidemark.core;

import io.tidemark.core.JsonMembers.Member;
import java.io.Serializable;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a raw archive keeps of a line beyond its declared columns, so that no key a source sends is lost: per row, a
 * JSON object of every member the typed columns do not hold. That is each key the feed does not declare, with its
 * value as JSON (a null too: the key was sent), and each optional declared field whose value did not convert to its
 * type (an amount sent as {@code "12.5x"}, an integer beyond an INT), under the field's name, while the field's
 * column holds null. A required field that is missing or does not convert still rejects the line. Null when the typed
 * columns hold everything.
 */
public final class Rescued {
  /** The rescued data of a row of a raw archive: a JSON object, or null. */
  public static final Column DATA = Column.of("rescued_data", Type.STRING);

  private Rescued() {}

  /**
   * The rule for one feed as declared when its lines are archived. Serializable: Spark ships it to its executors.
   * Which optional fields' typed values are null comes in as a mask, bit i for the feed's i-th optional field
   * ({@link FeedSchema#optional()}): the engine converted them, and this rule keeps what it could not.
   */
  public static final class Rule implements Serializable {
    private static final long serialVersionUID = 1L;
    /** Field name: its bit among the optional fields, or -1 for a required one. */
    private final HashMap<String, Integer> declared = new HashMap<>();

    public Rule(FeedSchema feed) {
      List<Column> optional = feed.optional();
      if (optional.size() > Long.SIZE) {
        throw new IllegalArgumentException(feed.name() + ": more than " + Long.SIZE + " optional fields");
      }
      for (Column c : feed.columns().columns()) {
        declared.put(c.name(), optional.indexOf(c));
      }
    }

    /**
     * The rescued data of a valid line (a JSON object whose required fields converted), given which optional fields'
     * typed values are null; null when there is nothing to keep or the line is not a JSON object.
     */
    public String of(String line, long typedNull) {
      Map<String, Member> kept = new LinkedHashMap<>();
      boolean object = JsonMembers.scan(line, key -> {
        Integer bit = declared.get(key);
        return bit == null || (bit >= 0 && (typedNull >>> bit & 1L) == 1L);
      }, kept);
      if (!object) {
        return null;
      }
      // a declared field sent as null: its column holds exactly that
      kept.values().removeIf(m -> m.isNull() && declared.containsKey(m.key()));
      return JsonMembers.object(kept.values());
    }
  }

  /** The members of rescued data (none for null). */
  public static Map<String, Member> members(String rescued) {
    if (rescued == null) {
      return Map.of();
    }
    Map<String, Member> out = JsonMembers.of(rescued);
    if (out == null) {
      throw new IllegalArgumentException("rescued data is not a JSON object: " + rescued);
    }
    return out;
  }

  /** The rescued data without {@code key} (promoted into a column that now holds its value); null when empty. */
  public static String without(String rescued, String key) {
    Map<String, Member> m = new LinkedHashMap<>(members(rescued));
    if (m.remove(key) == null) {
      return rescued;
    }
    return JsonMembers.object(m.values());
  }

  /** The JSON value of {@code key} in rescued data, or null when it holds none. */
  public static String value(String rescued, String key) {
    Member m = members(rescued).get(key);
    return m == null ? null : m.json();
  }
}
