package io.tidemark.publish;

import io.tidemark.Finding;
import io.tidemark.audit.AuditCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A publish that a check refused. Its message is one short line naming the check and the recipe that releases it
 * (docs/troubleshooting.md); what each check found, where the staged commit is kept and how to look at it are the
 * {@link #details}, which {@code tidemark publish} prints before that line: a check's detail can quote a landed line
 * or a row, and the line that ends a task log should say what happened, not carry a page of it.
 */
public final class PublishRefused extends PublishException implements Finding {
  /** The page of docs/troubleshooting.md with one recipe per check, each under this anchor plus the check's name. */
  public static final String RECIPES = "docs/troubleshooting.md#refused-by-";

  private final transient AuditCheck failed;
  private final transient List<String> details;

  /**
   * {@code tag}: where the staged commit is kept; null on a dry run, which tags nothing. {@code release}: the
   * commands that release it ({@link Releases}), with whole hashes.
   */
  PublishRefused(List<AuditCheck> failures, List<AuditCheck> checks, String published, String publishedAt,
                 String tag, String staging, List<String> release) {
    super(line(failures, published, tag));
    this.failed = failures.get(0);
    List<String> out = new ArrayList<>();
    checks.forEach(c -> out.add("  " + capped(c.toString(), 2000)));
    String at = tag == null ? staging : tag;
    out.add(published + " stays at " + publishedAt + (tag == null ? "; a dry run: nothing tagged"
        : "; what was staged on " + staging + " is kept as tag " + tag));
    out.add("look at it: tidemark check --branch " + at + "; tidemark log " + staging + "; tidemark sql \"SELECT * FROM "
        + "<ns.table>@" + at + "\"");
    out.add("release it: " + recipe(failed.name()) + (release.isEmpty() ? "" : ", here:"));
    out.addAll(release);
    this.details = List.copyOf(out);
  }

  private static String line(List<AuditCheck> failures, String published, String tag) {
    String others = failures.size() < 2 ? "" : " (also failed: " + failures.stream().skip(1).map(AuditCheck::name)
        .collect(Collectors.joining(", ")) + ")";
    // an expectation's refusal names the expectation, the count and a sample key in its one line: what the owner
    // of the feed acts on, without opening the details
    AuditCheck first = failures.get(0);
    String what = ArrivalChecks.EXPECTATIONS.equals(first.name()) ? " (" + capped(first.detail()
        .replaceFirst("^\\d+ violation\\(s\\): ", ""), 300) + ")" : "";
    return "publish refused by check " + first.name() + what + others + ": " + published + " unchanged"
        + (tag == null ? "" : ", staged commit tagged " + tag) + "; see " + recipe(failures.get(0).name());
  }

  /** Where the recipe that releases a refusal by {@code check} is. */
  public static String recipe(String check) {
    return RECIPES + check;
  }

  /** The check the refusal names first. */
  public AuditCheck failed() {
    return failed;
  }

  /** Every check's result, where the staged commit is kept, how to look at it, where the recipe is. */
  public List<String> details() {
    return details;
  }
}
