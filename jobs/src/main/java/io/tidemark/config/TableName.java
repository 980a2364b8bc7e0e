package io.tidemark.config;

import java.util.List;
import java.util.regex.Pattern;

/**
 * A validated {@code namespace.table} name. Table names end up inside SQL text, so only plain identifiers
 * are accepted: letters, digits and underscores, not starting with a digit.
 */
public record TableName(String namespace, String table) {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

  public TableName {
    requireIdentifier(namespace, "namespace");
    requireIdentifier(table, "table");
  }

  /** Parses {@code ns.table}; the message of the exception names what was wrong with the text. */
  public static TableName parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("expected namespace.table, got nothing");
    }
    List<String> parts = List.of(text.trim().split("\\.", -1));
    if (parts.size() != 2) {
      throw new IllegalArgumentException("expected namespace.table, got '" + text + "'");
    }
    return new TableName(parts.get(0), parts.get(1));
  }

  public static boolean isIdentifier(String text) {
    return text != null && IDENTIFIER.matcher(text).matches();
  }

  static void requireIdentifier(String text, String what) {
    if (!isIdentifier(text)) {
      throw new IllegalArgumentException(
          what + " '" + text + "' is not a plain SQL identifier (letters, digits, _; not starting with a digit)");
    }
  }

  /** The name quoted for Spark SQL, resolved in the default (Nessie) catalog. */
  public String sql() {
    return "`" + namespace + "`.`" + table + "`";
  }

  /** The name on a Nessie branch or tag, quoted for Spark SQL: {@code `ns`.`table@ref`}. */
  public String sqlAt(String ref) {
    if (ref == null || !ref.matches("[A-Za-z0-9][A-Za-z0-9._/-]*")) {
      throw new IllegalArgumentException("not a reference name: '" + ref + "'");
    }
    return "`" + namespace + "`.`" + table + "@" + ref + "`";
  }

  /** The name at one commit of a Nessie reference, quoted for Spark SQL: {@code `ns`.`table@ref#hash`}. */
  public String sqlAt(String ref, String hash) {
    if (hash == null || !hash.matches("[0-9a-fA-F]{8,64}")) {
      throw new IllegalArgumentException("not a commit hash: '" + hash + "'");
    }
    String at = sqlAt(ref);
    return at.substring(0, at.length() - 1) + "#" + hash + "`";
  }

  @Override
  public String toString() {
    return namespace + "." + table;
  }
}
