package io.tidemark.lakehouse.nessie;

import io.tidemark.services.TransientFault;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.UUID;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.projectnessie.client.api.NessieApiV1;
import org.projectnessie.client.api.PagingBuilder;
import org.projectnessie.error.NessieConflictException;
import org.projectnessie.error.NessieNotFoundException;
import org.projectnessie.model.Branch;
import org.projectnessie.model.CommitMeta;
import org.projectnessie.model.CommitResponse;
import org.projectnessie.model.DiffResponse;
import org.projectnessie.model.EntriesResponse;
import org.projectnessie.model.ImmutableMergeResponse;
import org.projectnessie.model.LogResponse;
import org.projectnessie.model.LogResponse.LogEntry;
import org.projectnessie.model.Reference;
import org.projectnessie.model.ReferencesResponse;

/**
 * The Nessie client with transient faults absorbed ({@link TransientFault}: a connection closed or reset, a timeout,
 * a 502/503/504), for tidemark's own calls ({@link NessieRefs}) and Iceberg's catalog alike: a call that reads is made
 * again after a backoff; a page of a long listing is fetched again, not the listing. A call that changes something
 * whose answer was lost may have taken effect, so before it is made again Nessie is asked whether it did, and a call
 * that did is never made twice:
 * <ul>
 *   <li>a commit or a merge carries a request id in its metadata ({@value #REQUEST}): the branch's commits since the
 *       hash the call expected are searched for it (a merge also for a commit that merged the source's hash);</li>
 *   <li>an assignment is done when the reference points where it was to; a reference made is done when it exists at
 *       the hash it was made at; one deleted, when it is gone.</li>
 * </ul>
 * A commit that finds, made again, that its keys changed since the hash it expected may be meeting itself: it is
 * searched for once more before the conflict is reported. The API is wrapped by proxies of its own interfaces and its
 * request builders', so every call, Iceberg's included, goes through here; nothing else of the client changes.
 */
public final class ResilientNessie {
  /** The commit property that names the request that made a commit, so that a lost answer can be looked for. */
  public static final String REQUEST = "tidemark.request";
  /** Commits of a branch searched for a request whose answer was lost: far more than commit while it is asked. */
  private static final int SEARCHED = 500;

  private ResilientNessie() {}

  /** {@code api} with transient faults absorbed (as it is when it is so already). */
  @SuppressWarnings("unchecked")
  public static <A extends NessieApiV1> A wrap(A api) {
    if (Proxy.isProxyClass(api.getClass()) && Proxy.getInvocationHandler(api) instanceof ApiHandler) {
      return api;
    }
    return (A) Proxy.newProxyInstance(ResilientNessie.class.getClassLoader(), Proxies.interfaces(api),
        new ApiHandler(api));
  }

  /** What a call does, for the log: "nessie getCommitLog().get()". */
  private static String what(String builder, Method m) {
    return "nessie " + builder + "." + m.getName() + "()";
  }

  /** A call made again while its failure is transient, up to {@link TransientFault#ATTEMPTS} times. */
  private static Object retried(String what, Object target, Method m, Object[] args) throws Throwable {
    for (int attempt = 1; ; attempt++) {
      try {
        return Proxies.call(target, m, args);
      } catch (Throwable t) {
        if (attempt >= TransientFault.ATTEMPTS || !TransientFault.is(t)) {
          throw t;
        }
        TransientFault.pause(what, attempt + 1, t);
      }
    }
  }

  /** The API: its calls that answer at once are retried, its request builders wrapped. */
  private record ApiHandler(NessieApiV1 api) implements InvocationHandler {
    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      if (m.getDeclaringClass() == Object.class || m.getName().equals("close") || m.getName().equals("unwrap")
          || m.getName().equals("unwrapClient")) {
        return Proxies.call(api, m, args);
      }
      Object result = retried(what("api", m), api, m, args);
      if (result != null && builder(result)) {
        return Proxy.newProxyInstance(ResilientNessie.class.getClassLoader(), Proxies.interfaces(result),
            new BuilderHandler(api, m.getName(), result));
      }
      return result;
    }
  }

  /** Whether an object is one of the client's request builders (its API package, not a model or a response). */
  private static boolean builder(Object o) {
    for (Class<?> i : Proxies.interfaces(o)) {
      if (i.getPackageName().equals("org.projectnessie.client.api") && i.getSimpleName().endsWith("Builder")) {
        return true;
      }
    }
    return false;
  }

  /**
   * A request builder: the calls that build the request are passed on (and what a reconciliation needs is noted),
   * the call that sends it is retried, after asking whether it took effect when it changes something.
   */
  private static final class BuilderHandler implements InvocationHandler {
    private final NessieApiV1 api;
    private final String name;
    private final Object builder;
    private final String request = UUID.randomUUID().toString();
    private Reference on;
    private Reference to;
    private String fromHash;
    private boolean dryRun;
    private boolean metaSet;

    BuilderHandler(NessieApiV1 api, String name, Object builder) {
      this.api = api;
      this.name = name;
      this.builder = builder;
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      String method = m.getName();
      if (m.getDeclaringClass() == Object.class) {
        return Proxies.call(builder, m, args);
      }
      Object[] a = note(method, args);
      switch (method) {
        case "commit", "commitWithResponse" -> {
          return commit(proxy, m, a);
        }
        case "merge", "transplant" -> {
          return dryRun ? retried(what(name, m), builder, m, a) : merge(m, a);
        }
        case "assign", "assignAndGet" -> {
          return assign(m, a);
        }
        case "create" -> {
          return create(m, a);
        }
        case "delete", "getAndDelete" -> {
          return delete(m, a);
        }
        case "stream" -> {
          if (builder instanceof PagingBuilder<?, ?, ?> paging) {
            return pages(paging, m);
          }
          return retried(what(name, m), builder, m, a);
        }
        default -> {
          if (method.startsWith("get")) {
            // a call that sends the request (get, getSingle, getWithResponse): made again as a whole
            return retried(what(name, m), builder, m, a);
          }
          Object result = Proxies.call(builder, m, a);
          return result == builder ? proxy : result;
        }
      }
    }

    /** Notes what identifies the request, and puts its id into the metadata it commits with. */
    private Object[] note(String method, Object[] args) {
      Object first = args == null || args.length == 0 ? null : args[0];
      switch (method) {
        case "branch", "reference", "tag", "branchName" -> {
          if (first instanceof Reference r) {
            on = r;
          }
        }
        case "assignTo" -> to = (Reference) first;
        case "fromRef" -> fromHash = first instanceof Reference r ? r.getHash() : fromHash;
        case "fromHash" -> fromHash = (String) first;
        case "dryRun" -> dryRun = Boolean.TRUE.equals(first);
        case "commitMeta" -> {
          metaSet = true;
          if (first instanceof CommitMeta meta && !meta.getProperties().containsKey(REQUEST)) {
            return new Object[] {CommitMeta.builder().from(meta).putProperties(REQUEST, request).build()};
          }
        }
        default -> {
          // the rest of the request: nothing a reconciliation needs
        }
      }
      return args;
    }

    private Object commit(Object proxy, Method m, Object[] args) throws Throwable {
      if (!metaSet) {
        // without metadata of its own the commit could not be found again: one with the request id alone
        invoke(proxy, io.tidemark.fence.CommitBuilders.commitMeta(), new Object[] {CommitMeta.fromMessage("")});
      }
      String what = what(name, m) + " on " + (on == null ? "?" : on.getName());
      for (int attempt = 1; ; attempt++) {
        try {
          return Proxies.call(builder, m, args);
        } catch (NessieConflictException conflict) {
          // made again after a lost answer, a commit meets the keys it changed itself: did it?
          Optional<LogEntry> mine = attempt > 1 ? landed(null) : Optional.empty();
          if (mine.isPresent()) {
            return committed(m, mine.get(), what);
          }
          throw conflict;
        } catch (Throwable t) {
          if (!TransientFault.is(t)) {
            throw t;
          }
          Optional<LogEntry> mine = landed(t);
          if (mine.isPresent()) {
            return committed(m, mine.get(), what);
          }
          if (attempt >= TransientFault.ATTEMPTS) {
            throw t;
          }
          TransientFault.pause(what, attempt + 1, t);
        }
      }
    }

    private Object committed(Method m, LogEntry e, String what) {
      Branch b = Branch.of(on.getName(), e.getCommitMeta().getHash());
      TransientFault.reconciled(what, "commit " + b.getHash());
      return m.getName().equals("commit") ? b : CommitResponse.builder().targetBranch(b).build();
    }

    private Object merge(Method m, Object[] args) throws Throwable {
      String what = what(name, m) + " into " + (on == null ? "?" : on.getName());
      for (int attempt = 1; ; attempt++) {
        try {
          return Proxies.call(builder, m, args);
        } catch (Throwable t) {
          if (!TransientFault.is(t)) {
            throw t;
          }
          Optional<LogEntry> mine = landed(t);
          if (mine.isPresent()) {
            String hash = mine.get().getCommitMeta().getHash();
            TransientFault.reconciled(what, "merge commit " + hash);
            return ImmutableMergeResponse.builder().targetBranch(on.getName()).effectiveTargetHash(on.getHash())
                .expectedHash(on.getHash()).resultantTargetHash(hash).wasApplied(true).wasSuccessful(true).build();
          }
          if (attempt >= TransientFault.ATTEMPTS) {
            throw t;
          }
          TransientFault.pause(what, attempt + 1, t);
        }
      }
    }

    /**
     * This request's commit on the branch it went to, among the commits since the hash it expected (a merge's: also
     * one whose parents name the merged commit). Empty when it is not there; {@code failure} when Nessie cannot be
     * asked either (what happened stays unknown: the caller reports it as it came).
     */
    private Optional<LogEntry> landed(Throwable failure) throws Throwable {
      if (on == null || on.getName() == null) {
        if (failure != null) {
          throw failure;
        }
        return Optional.empty();
      }
      for (int attempt = 1; ; attempt++) {
        try {
          var log = api.getCommitLog().refName(on.getName()).maxRecords(100);
          if (on.getHash() != null) {
            log = log.untilHash(on.getHash());
          }
          return find(log);
        } catch (NessieNotFoundException gone) {
          return Optional.empty();
        } catch (Throwable t) {
          if (attempt >= TransientFault.ATTEMPTS || !TransientFault.is(t)) {
            throw failure != null ? failure : t;
          }
          TransientFault.pause("nessie: whether a request whose answer was lost took effect", attempt + 1, t);
        }
      }
    }

    private Optional<LogEntry> find(org.projectnessie.client.api.GetCommitLogBuilder log)
        throws NessieNotFoundException {
      int seen = 0;
      String token = null;
      do {
        LogResponse page = token == null ? log.get() : log.pageToken(token).get();
        for (LogEntry e : page.getLogEntries()) {
          CommitMeta meta = e.getCommitMeta();
          if (request.equals(meta.getProperties().get(REQUEST))
              || fromHash != null && meta.getParentCommitHashes().contains(fromHash)) {
            return Optional.of(e);
          }
          if (on.getHash() != null && on.getHash().equals(meta.getHash()) || ++seen >= SEARCHED) {
            return Optional.empty();
          }
        }
        token = page.isHasMore() ? page.getToken() : null;
      } while (token != null);
      return Optional.empty();
    }

    private Object assign(Method m, Object[] args) throws Throwable {
      String what = what(name, m) + " of " + (on == null ? "?" : on.getName());
      for (int attempt = 1; ; attempt++) {
        try {
          return Proxies.call(builder, m, args);
        } catch (Throwable t) {
          if (!TransientFault.is(t)) {
            throw t;
          }
          Optional<Reference> now = current(t);
          if (now.isPresent() && to != null && now.get().getHash().equals(to.getHash())) {
            TransientFault.reconciled(what, on.getName() + " at " + to.getHash());
            return m.getName().equals("assign") ? null : now.get();
          }
          if (attempt >= TransientFault.ATTEMPTS || now.isEmpty() || on == null
              || on.getHash() != null && !now.get().getHash().equals(on.getHash())) {
            throw t;
          }
          TransientFault.pause(what, attempt + 1, t);
        }
      }
    }

    private Object create(Method m, Object[] args) throws Throwable {
      String what = what(name, m) + " of " + (on == null ? "?" : on.getName());
      for (int attempt = 1; ; attempt++) {
        try {
          return Proxies.call(builder, m, args);
        } catch (Throwable t) {
          if (!TransientFault.is(t)) {
            throw t;
          }
          Optional<Reference> now = current(t);
          if (now.isPresent() && on != null && (on.getHash() == null || now.get().getHash().equals(on.getHash()))) {
            TransientFault.reconciled(what, on.getName() + " at " + now.get().getHash());
            return now.get();
          }
          if (attempt >= TransientFault.ATTEMPTS || now.isPresent()) {
            throw t;
          }
          TransientFault.pause(what, attempt + 1, t);
        }
      }
    }

    private Object delete(Method m, Object[] args) throws Throwable {
      String what = what(name, m) + " of " + (on == null ? "?" : on.getName());
      for (int attempt = 1; ; attempt++) {
        try {
          return Proxies.call(builder, m, args);
        } catch (Throwable t) {
          if (!TransientFault.is(t)) {
            throw t;
          }
          Optional<Reference> now = current(t);
          if (now.isEmpty()) {
            TransientFault.reconciled(what, on.getName() + " gone");
            return m.getName().equals("delete") ? null : on;
          }
          if (attempt >= TransientFault.ATTEMPTS || on.getHash() != null
              && !now.get().getHash().equals(on.getHash())) {
            throw t;
          }
          TransientFault.pause(what, attempt + 1, t);
        }
      }
    }

    /** The reference the request is on, as Nessie has it now; empty when it has none of that name. */
    private Optional<Reference> current(Throwable failure) throws Throwable {
      if (on == null) {
        throw failure;
      }
      for (int attempt = 1; ; attempt++) {
        try {
          return Optional.of(api.getReference().refName(on.getName()).get());
        } catch (NessieNotFoundException gone) {
          return Optional.empty();
        } catch (Throwable t) {
          if (attempt >= TransientFault.ATTEMPTS || !TransientFault.is(t)) {
            throw failure;
          }
          TransientFault.pause("nessie: where " + on.getName() + " is now", attempt + 1, t);
        }
      }
    }

    /**
     * A listing read a page at a time, each page fetched again on a transient fault (not the whole listing). The
     * first page is fetched at once, so that a reference Nessie lacks is said where the client's own stream says it.
     */
    private Stream<?> pages(PagingBuilder<?, ?, ?> paging, Method m) throws Throwable {
      String what = what(name, m) + " page";
      Object first = retried(what, paging, PagingBuilder.class.getMethod("get"), null);
      Iterator<Object> it = new Iterator<>() {
        private Iterator<?> page = entries(first).iterator();
        private String token = token(first);
        private boolean done = token == null;

        @Override
        public boolean hasNext() {
          while ((page == null || !page.hasNext()) && !done) {
            Object response = fetch();
            page = entries(response).iterator();
            token = token(response);
            done = token == null;
          }
          return page != null && page.hasNext();
        }

        @Override
        public Object next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          return page.next();
        }

        private Object fetch() {
          try {
            if (token != null) {
              paging.pageToken(token);
            }
            return retried(what, paging, PagingBuilder.class.getMethod("get"), null);
          } catch (RuntimeException e) {
            throw e;
          } catch (Throwable t) {
            // a checked NessieNotFoundException: the stream's reader gets it as the client's stream throws it
            throw new NessieStreamFailure(t);
          }
        }
      };
      return StreamSupport.stream(Spliterators.spliteratorUnknownSize(it, Spliterator.ORDERED), false);
    }

    private static List<?> entries(Object response) {
      if (response instanceof LogResponse r) {
        return r.getLogEntries();
      }
      if (response instanceof EntriesResponse r) {
        return r.getEntries();
      }
      if (response instanceof ReferencesResponse r) {
        return r.getReferences();
      }
      if (response instanceof DiffResponse r) {
        return r.getDiffs();
      }
      throw new IllegalStateException("a page of a kind not known here: " + response.getClass().getName());
    }

    private static String token(Object response) {
      try {
        boolean more = (Boolean) response.getClass().getMethod("isHasMore").invoke(response);
        return more ? (String) response.getClass().getMethod("getToken").invoke(response) : null;
      } catch (ReflectiveOperationException e) {
        return null;
      }
    }
  }

  /** A failure of a page of a listing that the stream's reader could not be handed as it was (a checked one). */
  public static final class NessieStreamFailure extends RuntimeException {
    NessieStreamFailure(Throwable cause) {
      super(cause.getMessage(), cause);
    }
  }
}
