package io.tidemark.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The changes that rebuild the SCD2 history of the companies an arrival touched without their whole change log: the
 * published versions that start before the company's earliest staged change, as changes, and the logged changes from
 * that time on. A change sets a company's state from its time until the next change, so the staged changes alter the
 * history from their earliest on and nothing before it; the published dimension was checked when it was published
 * (it is the history of the published change log), so its versions before that time are what the log says, while the
 * logged changes from that time on are all read, the repeats the versions merged away included (a late change between
 * two alike states splits them again). The history rebuilt from these changes equals the one rebuilt from every
 * change; reading them costs what the arrival reaches back to, not the history.
 *
 * <p>Times are epoch microseconds; {@link #ALL} as a company's earliest means every logged change of it.
 */
public final class Scd2Since {
  /** A company's earliest time when every logged change of it counts (none earlier, which the history sorts first). */
  public static final long ALL = Long.MIN_VALUE;

  private Scd2Since() {}

  /** Each company's earliest change time among {@code changes}. */
  public static Map<String, Long> earliest(List<CompanyChange> changes) {
    Map<String, Long> out = new HashMap<>();
    for (CompanyChange c : changes) {
      out.merge(c.companyId(), micros(c.changeTs()), Math::min);
    }
    return out;
  }

  /** Whether a logged change is at or after its company's earliest staged change. */
  public static boolean isFrom(CompanyChange change, Map<String, Long> from) {
    Long t = from.get(change.companyId());
    return t != null && (t == ALL || micros(change.changeTs()) >= t);
  }

  /**
   * The published versions of each company that start before its earliest staged change, as changes: the version's
   * state at its start, and a delete at its end when it ends before that time and no version follows at once (a
   * delete left the gap). A version still valid at that time gets no end: the changes from that time on say where it
   * ends.
   */
  public static List<CompanyChange> asChanges(List<CompanyVersion> published, Map<String, Long> from) {
    Set<CompanyVersion.Key> starts = new HashSet<>();
    for (CompanyVersion v : published) {
      starts.add(v.key());
    }
    List<CompanyChange> out = new ArrayList<>();
    for (CompanyVersion v : published) {
      Long t = from.get(v.companyId());
      if (t == null || micros(v.validFrom()) >= t) {
        continue;
      }
      out.add(CompanyChange.set(v.companyId(), v.name(), v.tier(), v.validFrom(), v.more()));
      Instant end = v.validTo();
      if (end != null && micros(end) < t && !starts.contains(new CompanyVersion.Key(v.companyId(), end))) {
        out.add(CompanyChange.delete(v.companyId(), end));
      }
    }
    return out;
  }

  /** A change time as epoch microseconds; none (which the history sorts first) as the earliest of all. */
  public static long micros(Instant t) {
    return t == null ? ALL : Times.micros(t);
  }
}
