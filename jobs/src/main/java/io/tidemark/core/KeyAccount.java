package io.tidemark.core;

import io.tidemark.core.JsonMembers.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every key of every landed line is kept, the rule {@link Lines} keeps for lines, one level down: for one landed file,
 * each key that came with a value (a null carries none) is held by the raw archive, in a typed column or in the
 * rescued data ({@link Rescued}), or by the quarantine, which keeps the whole line. Counted per key over the file:
 * the members of its lines against the typed values, rescued members and quarantined lines' members of its rows. A
 * count that differs means a value that was dropped, or kept twice.
 */
public final class KeyAccount {
  /** Per key: [landed, kept]. */
  private final Map<String, long[]> counts = new TreeMap<>();

  /** The lines of a landed file, as the raw streams read them ({@link LineReader}). */
  public void landedFile(byte[] content) {
    LineReader.lines(content).forEach(l -> landed(l.text()));
  }

  /** A landed line: each of its members with a value. */
  public void landed(String line) {
    members(line).forEach((k, m) -> {
      if (!m.isNull()) {
        count(k)[0]++;
      }
    });
  }

  /** A quarantined line: it keeps every member it has. */
  public void quarantined(String line) {
    members(line).forEach((k, m) -> {
      if (!m.isNull()) {
        count(k)[1]++;
      }
    });
  }

  /** An archived row: its typed columns that hold a value, and its rescued data. */
  public void archived(Iterable<String> typedWithValue, String rescued) {
    typedWithValue.forEach(k -> count(k)[1]++);
    Rescued.members(rescued).forEach((k, m) -> {
      if (!m.isNull()) {
        count(k)[1]++;
      }
    });
  }

  private long[] count(String key) {
    return counts.computeIfAbsent(key, k -> new long[2]);
  }

  private static Map<String, Member> members(String line) {
    Map<String, Member> m = JsonMembers.of(line);
    return m == null ? Map.of() : m;
  }

  /** Whether every key is kept as often as it landed. */
  public boolean balanced() {
    return unbalanced().isEmpty();
  }

  /** Each key kept a different number of times than it landed: {@code region: 3 landed, 2 kept}. */
  public List<String> unbalanced() {
    List<String> out = new ArrayList<>();
    counts.forEach((k, c) -> {
      if (c[0] != c[1]) {
        out.add("key " + k + ": " + c[0] + " value(s) landed, " + c[1] + " kept");
      }
    });
    return out;
  }

  /** The values landed, over every key. */
  public long landedValues() {
    return counts.values().stream().mapToLong(c -> c[0]).sum();
  }
}
