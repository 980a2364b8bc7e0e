package io.tidemark.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Values of declared columns as one JSON object of their text ({@link Type#text}: {@code "12.50"},
 * {@code "2026-01-01T00:00:00Z"}), and back in the columns' types: how a restatement's plan keeps a key, a window's
 * measures or a whole record of any feed in a few string columns, readable by a person and read back exactly.
 */
public final class ValuesJson {
  private ValuesJson() {}

  /** The values of {@code columns} (in their order) as a JSON object. */
  public static String of(List<Column> columns, List<Object> values) {
    if (values.size() != columns.size()) {
      throw new IllegalArgumentException("values " + values + " for the columns " + columns);
    }
    List<JsonMembers.Member> members = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      Object v = values.get(i);
      Column c = columns.get(i);
      members.add(v == null ? new JsonMembers.Member(c.name(), "null", JsonMembers.Kind.NULL)
          : new JsonMembers.Member(c.name(), JsonMembers.quoted(c.type().text(v)), JsonMembers.Kind.STRING));
    }
    return JsonMembers.object(members);
  }

  /**
   * The values of {@code columns} an object holds, by name, in their types; a column the object does not name is an
   * error naming it, never a null.
   */
  public static Fields read(List<Column> columns, String json) {
    Map<String, JsonMembers.Member> members = json == null ? null : JsonMembers.of(json);
    Map<String, Object> out = new HashMap<>();
    for (Column c : columns) {
      JsonMembers.Member m = members == null ? null : members.get(c.name());
      if (m == null) {
        throw new IllegalStateException("no value for " + c.name() + " in " + json);
      }
      out.put(c.name(), m.isNull() ? null : c.type().valueOf(JsonMembers.display(m)));
    }
    return out::get;
  }
}
