package io.tidemark.fence;

import io.tidemark.CommandScope;
import io.tidemark.lakehouse.nessie.Proxies;
import io.tidemark.lakehouse.nessie.CommitStory;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.nessie.NessieIcebergClient;
import org.projectnessie.client.api.CommitMultipleOperationsBuilder;
import org.projectnessie.client.api.NessieApiV1;
import org.projectnessie.error.NessieConflictException;
import org.projectnessie.error.NessieNotFoundException;
import org.projectnessie.model.CommitMeta;
import org.projectnessie.model.ContentKey;

/**
 * Iceberg's Nessie client, with one change: a table commit whose snapshot carries tidemark provenance gets the
 * author and message of its {@link CommitStory}. Everything else (conflict checks, expected hash, retries) stays
 * Iceberg's own.
 *
 * <p>Relies on: Iceberg builds the commit metadata inside a private method of {@code commitTable} and sends it, on the
 * calling thread, through {@code getApi().commitMultipleOperations()...commitMeta(meta)...commit()}; so the story is
 * handed over through a thread-local to a proxy of the Nessie API's commit builder, where the metadata is replaced
 * just before it is sent. A table reference ({@code t@branch}) gets a client of its own from {@code withReference}.
 */
final class NarratingNessieClient extends NessieIcebergClient {
  private static final ThreadLocal<CommitStory> PENDING = new ThreadLocal<>();

  private final Map<String, String> options;

  NarratingNessieClient(NessieApiV1 api, String ref, String hash, Map<String, String> options) {
    super(narrating(api), ref, hash, options);
    this.options = options;
  }

  @Override
  public void commitTable(TableMetadata base, TableMetadata metadata, String newMetadataLocation, String contentId,
                          ContentKey key) throws NessieConflictException, NessieNotFoundException {
    Snapshot s = metadata.currentSnapshot();
    boolean newSnapshot = s != null
        && (base == null || base.currentSnapshot() == null || base.currentSnapshot().snapshotId() != s.snapshotId());
    Optional<CommitStory> story = newSnapshot
        ? CommitStory.of(key.toString(), s.operation(), s.summary(),
            CommandScope.of(options).env().get(CommitStory.RUN_CONTEXT_ENV))
        : Optional.empty();
    story.ifPresent(PENDING::set);
    try {
      super.commitTable(base, metadata, newMetadataLocation, contentId, key);
    } finally {
      PENDING.remove();
    }
  }

  /** Table references ({@code t@branch}) get a client of their own: it must tell the story too. */
  @Override
  public NessieIcebergClient withReference(String requestedRef, String hash) {
    NessieIcebergClient plain = super.withReference(requestedRef, hash);
    return plain == this ? this : new NarratingNessieClient(getApi(), requestedRef, hash, options);
  }

  static CommitMeta retold(CommitMeta meta, CommitStory story) {
    return CommitMeta.builder().from(meta).message(story.message()).allAuthors(List.of(story.author()))
        .putAllProperties(story.properties()).build();
  }

  private static NessieApiV1 narrating(NessieApiV1 api) {
    if (Proxy.isProxyClass(api.getClass()) && Proxy.getInvocationHandler(api) instanceof ApiHandler) {
      return api;
    }
    return (NessieApiV1) Proxy.newProxyInstance(NarratingNessieClient.class.getClassLoader(), Proxies.interfaces(api),
        new ApiHandler(api));
  }

  /** The Nessie API: only its commit builder is wrapped. */
  private record ApiHandler(NessieApiV1 api) implements InvocationHandler {
    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      Object result = Proxies.call(api, m, args);
      if (result instanceof CommitMultipleOperationsBuilder b && "commitMultipleOperations".equals(m.getName())) {
        return Proxy.newProxyInstance(NarratingNessieClient.class.getClassLoader(),
            new Class<?>[] {CommitMultipleOperationsBuilder.class}, new BuilderHandler(b));
      }
      return result;
    }
  }

  /** Replaces the commit metadata when a story is pending on this thread; keeps the fluent chain on the proxy. */
  private record BuilderHandler(CommitMultipleOperationsBuilder builder) implements InvocationHandler {
    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      CommitStory story = PENDING.get();
      if (story != null && "commitMeta".equals(m.getName()) && args != null && args[0] instanceof CommitMeta meta) {
        args = new Object[] {retold(meta, story)};
      }
      Object result = Proxies.call(builder, m, args);
      return result == builder ? proxy : result;
    }
  }
}
