package io.tidemark.fence;

import java.lang.reflect.Method;
import org.projectnessie.client.api.CommitMultipleOperationsBuilder;
import org.projectnessie.model.CommitMeta;

/**
 * Relies on Nessie's commit builder taking a commit's metadata through {@code commitMeta} any time before its
 * {@code commit()}: the resilient client ({@code lakehouse.nessie.ResilientNessie}) sets metadata on a builder that has
 * none, so that a commit whose answer was lost can be found again by the request id it carries. Iceberg's own commits
 * set theirs first, which {@link NarratingNessieClient} also relies on.
 */
public final class CommitBuilders {
  private CommitBuilders() {}

  /** The builder's method that sets the commit's metadata. */
  public static Method commitMeta() {
    try {
      return CommitMultipleOperationsBuilder.class.getMethod("commitMeta", CommitMeta.class);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException("Nessie's commit builder has no commitMeta(CommitMeta) any more: "
          + "io.tidemark.fence.CommitBuilders needs its replacement", e);
    }
  }
}
