package io.tidemark.lakehouse.spark;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lets people write {@code ns.table@branch} (or {@code ns.table@branch#hash}) in SQL. Spark's parser does not
 * accept {@code @} in a name, while Iceberg's Nessie catalog reads {@code table@ref} as "this table on that
 * reference"; so the last part is back-quoted: {@code ns.`table@branch`}. Text in quotes is left alone.
 */
public final class RefQualifiedNames {
  private static final Pattern NAME_AT_REF = Pattern.compile(
      "(?<![\\w`])((?:[A-Za-z_]\\w*\\.)+)([A-Za-z_]\\w*)@([A-Za-z0-9_][\\w\\-/]*(?:\\.[\\w\\-/]+)*(?:#[0-9a-fA-F]+)?)");

  private RefQualifiedNames() {}

  public static String quote(String sql) {
    return outsideQuotes(sql, RefQualifiedNames::rewrite);
  }

  /** {@code sql} with {@code rewrite} applied to each stretch of it outside quotes and string literals. */
  static String outsideQuotes(String sql, java.util.function.UnaryOperator<String> rewrite) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        int end = closing(sql, i, c);
        out.append(sql, i, end);
        i = end;
      } else {
        int next = nextQuote(sql, i);
        out.append(rewrite.apply(sql.substring(i, next)));
        i = next;
      }
    }
    return out.toString();
  }

  private static String rewrite(String plain) {
    Matcher m = NAME_AT_REF.matcher(plain);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(sb, Matcher.quoteReplacement(m.group(1) + "`" + m.group(2) + "@" + m.group(3) + "`"));
    }
    m.appendTail(sb);
    return sb.toString();
  }

  private static int nextQuote(String s, int from) {
    for (int i = from; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        return i;
      }
    }
    return s.length();
  }

  /** The index after the closing quote; a backslash escapes inside string literals, doubling escapes too. */
  private static int closing(String s, int open, char q) {
    int i = open + 1;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '\\' && q != '`') {
        i += 2;
        continue;
      }
      if (c == q) {
        if (i + 1 < s.length() && s.charAt(i + 1) == q) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i++;
    }
    return s.length();
  }
}
