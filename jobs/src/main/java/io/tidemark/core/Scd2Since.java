package io.tidemark.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The changes that rebuild the SCD2 history of the keys an arrival touched without their whole change log: the
 * published versions that start before the key's earliest staged change, as changes, and the logged changes from that
 * time on. A change sets a key's state from its time until the next change, so the staged changes alter the history
 * from their earliest on and nothing before it; the published dimension was checked when it was published (it is the
 * history of the published change log), so its versions before that time are what the log says, while the logged
 * changes from that time on are all read, the repeats the versions merged away included (a late change between two
 * alike states splits them again). The history rebuilt from these changes equals the one rebuilt from every change;
 * reading them costs what the arrival reaches back to, not the history.
 *
 * <p>Times are epoch microseconds; {@link #ALL} as a key's earliest means every logged change of it.
 */
public final class Scd2Since {
  /** A key's earliest time when every logged change of it counts (none earlier, which the history sorts first). */
  public static final long ALL = Long.MIN_VALUE;

  private Scd2Since() {}

  /** Each key's earliest change time among {@code changes}. */
  public static Map<List<Object>, Long> earliest(List<Change> changes) {
    Map<List<Object>, Long> out = new HashMap<>();
    for (Change c : changes) {
      out.merge(c.key(), micros(c.at()), Math::min);
    }
    return out;
  }

  /** Whether a logged change is at or after its key's earliest staged change. */
  public static boolean isFrom(Change change, Map<List<Object>, Long> from) {
    Long t = from.get(change.key());
    return t != null && (t == ALL || micros(change.at()) >= t);
  }

  /**
   * The published versions of each key that start before its earliest staged change, as changes: the version's state
   * at its start, and a delete at its end when it ends before that time and no version follows at once (a delete left
   * the gap). A version still valid at that time gets no end: the changes from that time on say where it ends.
   */
  public static List<Change> asChanges(List<Version> published, Map<List<Object>, Long> from) {
    Set<Version.Id> starts = new HashSet<>();
    for (Version v : published) {
      starts.add(v.id());
    }
    List<Change> out = new ArrayList<>();
    for (Version v : published) {
      Long t = from.get(v.key());
      if (t == null || micros(v.validFrom()) >= t) {
        continue;
      }
      out.add(Change.set(v.key(), v.validFrom(), v.attributes()));
      Instant end = v.validTo();
      if (end != null && micros(end) < t && !starts.contains(new Version.Id(v.key(), end))) {
        out.add(Change.delete(v.key(), end, v.attributes().size()));
      }
    }
    return out;
  }

  /** A change time as epoch microseconds; none (which the history sorts first) as the earliest of all. */
  public static long micros(Instant t) {
    return t == null ? ALL : Times.micros(t);
  }
}
