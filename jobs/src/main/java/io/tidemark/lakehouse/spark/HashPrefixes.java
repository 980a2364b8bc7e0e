package io.tidemark.lakehouse.spark;

import java.util.function.BinaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lets people give a commit by the beginning of its hash, as git does, where SQL names one: {@code ns.table@ref#hash}
 * and the Nessie extensions' {@code ... TO ref AT hash}, {@code USE REFERENCE ref AT hash}, {@code SHOW LOG ref AT
 * hash}. Nessie takes only whole hashes (64 hex digits), which no person types; the short ones {@code tidemark log}
 * and the messages show are found in the named reference's history and written out in full. Text in quotes is left
 * alone.
 */
public final class HashPrefixes {
  /** The shortest beginning of a hash taken (git's). */
  static final int SHORTEST = 4;
  private static final String HEX = "[0-9a-fA-F]{" + SHORTEST + ",63}";
  private static final String REF = "[A-Za-z0-9_][\\w\\-/]*(?:\\.[\\w\\-/]+)*";
  private static final Pattern AT_REF = Pattern.compile("(?<![\\w`])((?:[A-Za-z_]\\w*\\.)+[A-Za-z_]\\w*@)(" + REF
      + ")#(" + HEX + ")(?![0-9a-fA-F\\w])");
  private static final Pattern AT_HASH = Pattern.compile("(?i)(\\b(?:TO|REFERENCE|LOG)\\s+)(" + REF
      + ")(\\s+AT\\s+)(" + HEX + ")(?![0-9a-fA-F\\w])");

  private HashPrefixes() {}

  /** {@code sql} with every short hash replaced by {@code fullHash.apply(ref, prefix)}, the whole hash. */
  public static String expand(String sql, BinaryOperator<String> fullHash) {
    return RefQualifiedNames.outsideQuotes(sql, plain -> {
      Matcher m = AT_REF.matcher(plain);
      StringBuilder sb = new StringBuilder();
      while (m.find()) {
        m.appendReplacement(sb, Matcher.quoteReplacement(m.group(1) + m.group(2) + "#"
            + fullHash.apply(m.group(2), m.group(3))));
      }
      m.appendTail(sb);
      m = AT_HASH.matcher(sb.toString());
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        m.appendReplacement(out, Matcher.quoteReplacement(m.group(1) + m.group(2) + m.group(3)
            + fullHash.apply(m.group(2), m.group(4))));
      }
      m.appendTail(out);
      return out.toString();
    });
  }
}
