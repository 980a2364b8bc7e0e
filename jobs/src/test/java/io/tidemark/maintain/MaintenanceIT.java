package io.tidemark.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tidemark.config.TableName;
import io.tidemark.land.SeedScenarios;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.lakehouse.nessie.RefNames;
import io.tidemark.lakehouse.spark.RefQualifiedNames;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.land.Arrival;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.LandingFile;
import io.tidemark.stream.StreamSpec;
import io.tidemark.testing.Pipeline;
import io.tidemark.testing.Seed;
import io.tidemark.testing.SeedTables;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.Steps;
import io.tidemark.testing.TestStack;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.projectnessie.model.Branch;

/**
 * Maintenance on the real stack: generated arrivals through the real streams, a tag and a branch left on old
 * commits of main, then compaction and garbage collection, every table on every reference read in full before
 * and after ({@link CompactionAndGc}, in steps). GC marks every reference of the shared Nessie and sweeps only the
 * pipeline's namespace.
 */
class MaintenanceIT extends StackTest {
  private static final GeneratorSpec EVENTS = new GeneratorSpec(13, 3_000, 8, 0.03, 0.02, 1, 0.02, 4, 0, 1,
      GeneratorSpec.DEFAULT_START, 60);
  /** The same events, and company changes for the SCD2 dimension. */
  private static final GeneratorSpec SPEC = new GeneratorSpec(13, 3_000, 8, 0.03, 0.02, 1, 0.02, 4, 40, 10,
      GeneratorSpec.DEFAULT_START, 60);

  private final List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());

  /**
   * Generated arrivals through every stream, a tag on main after the first and a branch after the second, then in
   * steps: dry runs, compaction, GC within the grace period, GC, the landing zone's cleanup.
   */
  @Nested
  @Steps
  class CompactionAndGc {
    private Pipeline p;
    private List<TableName> tables;
    private String ns;
    private String tag;
    private String branch;
    private Map<String, List<String>> before;
    private TableName dimension;
    private Maintenance m;
    private Storage storage;
    private String bucket;
    private String prefix;
    private String orphan;
    private final Compaction.Options compact = new Compaction.Options(128L << 20, 2, 5, false);

    @BeforeAll
    void arrivalsWithATagAndABranchOnOlderCommits(@TempDir Path dir) {
      p = new Pipeline(stack, "maint", dir.resolve("cp"));
      tables = SeedTables.of(p.config()).all();
      ns = SeedTables.of(p.config()).events().namespace();
      tag = TestStack.unique("maint_old_tag");
      branch = TestStack.unique("maint_old_branch");
      List<Arrival> arrivals = new GeneratedScenario(SPEC, Seed.PIPELINE).arrivals();
      try (NessieRefs refs = new NessieRefs(stack.endpoints())) {
        for (Arrival a : arrivals) {
          p.arrive(a);
          if (a.number() == 1) {
            refs.tag(tag, stack.config().nessieRef(), refs.hash(stack.config().nessieRef()).orElseThrow());
          }
          if (a.number() == 2) {
            refs.createBranch(branch, refs.branch(stack.config().nessieRef()));
          }
        }
      }
      before = readAll(tables, List.of(stack.config().nessieRef(), tag, branch));
      dimension = SeedTables.of(p.config()).companies();
      m = new Maintenance(p.lakehouse(), log::add);
      storage = p.lakehouse().storage();
      bucket = p.config().warehouseBucket();
      prefix = "warehouse/" + ns + "/";
    }

    @Test
    @Order(1)
    void theTablesHaveWhatMaintenanceIsFor() {
      assertThat(deleteFiles(dimension)).as("the SCD2 stream replaced versions by position deletes").isPositive();
      assertThat(before.get(SeedTables.of(p.config()).rawEvents() + "@" + tag)).as("the tag reads an older staging branch")
          .isNotEmpty()
          .hasSizeLessThan(before.get(SeedTables.of(p.config()).rawEvents() + "@" + stack.config().nessieRef()).size());
    }

    @Test
    @Order(2)
    void dryRunsChangeNothing() {
      List<Storage.ObjectInfo> objectsBefore = storage.list(bucket, prefix);
      // an object no commit ever referenced, as a failed write leaves behind
      orphan = prefix + "orphan/data/00000-orphan.parquet";
      storage.put(bucket, orphan, "not referenced".getBytes(StandardCharsets.UTF_8), "application/octet-stream");
      String mainHash = stack.nessie().hash(stack.config().nessieRef());

      List<Compaction.Result> planned = m.compact(tables, new Compaction.Options(128L << 20, 2, 5, true));
      GarbageCollector.Result dry = m.gc(new GarbageCollector.Options(Duration.ZERO, Duration.ZERO, ns + "/", true));
      assertThat(planned).as("%s", log).anyMatch(r -> r.rewrittenFiles() > 0);
      assertThat(dry.deleted()).isZero();
      assertThat(dry.unreachable()).as("at least the orphan").isPositive();
      assertThat(stack.nessie().hash(stack.config().nessieRef())).as("no commit by a dry run").isEqualTo(mainHash);
      List<String> expected = new ArrayList<>(List.of(keys(objectsBefore).split(",")));
      expected.add(orphan);
      assertThat(keys(storage.list(bucket, prefix))).as("no object deleted or written by a dry run")
          .isEqualTo(String.join(",", expected.stream().sorted().toList()));
    }

    @Test
    @Order(3)
    void compactionLeavesFewerFilesAndTheSameRows() {
      List<Compaction.Result> compacted = m.compact(tables, compact);
      System.out.println(String.join("\n", log));
      for (Compaction.Result r : compacted) {
        assertThat(r.filesAfter()).as("%s", r).isLessThanOrEqualTo(r.filesBefore());
      }
      for (TableName t : List.of(SeedTables.of(p.config()).rawEvents(), SeedTables.of(p.config()).events(),
          SeedTables.of(p.config()).eventCounts())) {
        Compaction.Result r = compacted.stream().filter(c -> c.table().equals(t)).findFirst().orElseThrow();
        assertThat(r.filesAfter()).as("%s", r).isLessThan(r.filesBefore());
      }
      assertThat(deleteFiles(dimension)).as("the SCD2 stream's position deletes are applied and gone").isZero();
      Map<String, List<String>> afterCompaction = readAll(tables, List.of(stack.config().nessieRef(), tag, branch));
      assertThat(afterCompaction).as("every table on every reference, after compaction").isEqualTo(before);
    }

    /** With a grace period longer than the test: everything here is young, nothing goes. */
    @Test
    @Order(4)
    void gcWithinTheGracePeriodDeletesNothing() {
      GarbageCollector.Result graced = m.gc(new GarbageCollector.Options(Duration.ZERO, Duration.ofHours(1),
          ns + "/", false));
      assertThat(graced.deleted()).isZero();
      assertThat(graced.tooYoung()).isEqualTo(graced.unreachable()).isPositive();
    }

    /**
     * Keeping only the heads of every reference: what compaction replaced on main goes, unless the tag or the
     * branch reads it.
     */
    @Test
    @Order(5)
    void gcFreesWhatNoReferenceReads() {
      GarbageCollector.Result gc = m.gc(new GarbageCollector.Options(Duration.ZERO, Duration.ZERO, ns + "/", false));
      System.out.println(String.join("\n", log));
      assertThat(gc.deleted()).as("%s", log).isPositive();
      List<Storage.ObjectInfo> objectsAfter = storage.list(bucket, prefix);
      long bytesAfter = objectsAfter.stream().mapToLong(Storage.ObjectInfo::size).sum();
      assertThat(bytesAfter).as("storage bytes go down").isLessThan(gc.bytes());
      assertThat(keys(objectsAfter)).doesNotContain(orphan);
      assertThat(readAll(tables, List.of(stack.config().nessieRef(), tag, branch))).as("every table on every reference, after GC")
          .isEqualTo(before);
      GarbageCollector.Result again = m.gc(new GarbageCollector.Options(Duration.ZERO, Duration.ZERO, ns + "/", true));
      assertThat(again.unreachable()).as("what is left is exactly what some reference reads").isZero();
      assertThat(again.objects()).isEqualTo(objectsAfter.size());
    }

    /** Only what every stream of the dataset committed goes; an arrival no stream read yet stays. */
    @Test
    @Order(6)
    void landingCleanupTakesOnlyWhatEveryStreamCommitted() {
      String landingBucket = p.config().landingBucket();
      int landedEvents = storage.list(landingBucket, "events/").size();
      int landedChanges = storage.list(landingBucket, "companies/").size();
      p.lander().land(new Arrival(99, List.of(LandingFile.of(SeedScenarios.EVENTS, "unread.jsonl",
          "{\"event_id\":1,\"company_id\":\"c1\",\"amount\":1.0,\"event_ts\":\"2026-01-02T00:00:00Z\"}\n"))));
      LandingCleanup.Result toGo = m.landing(new LandingCleanup.Options("", true));
      assertThat(landedChanges).isPositive();
      assertThat(toGo.removable()).as("%s", log).isEqualTo(landedEvents + landedChanges).isPositive();
      assertThat(storage.list(landingBucket, "events/")).hasSize(landedEvents + 1);
      LandingCleanup.Result archived = m.landing(new LandingCleanup.Options("archive/", false));
      assertThat(archived.removed()).isEqualTo(landedEvents + landedChanges);
      assertThat(storage.list(landingBucket, "events/")).extracting(Storage.ObjectInfo::key)
          .containsExactly("events/arrival=0099/unread.jsonl");
      assertThat(storage.list(landingBucket, "archive/events/")).hasSize(landedEvents);
      assertThat(storage.list(landingBucket, "companies/")).isEmpty();
      assertThat(storage.list(landingBucket, "archive/companies/")).hasSize(landedChanges);
    }
  }

  @Test
  void aStreamCommitRacingCompactionLosesNothing() throws Exception {
    Pipeline p = new Pipeline(stack, "maint_race", tmp.resolve("cp-race"));
    TableName raw = SeedTables.of(p.config()).rawEvents();
    TableName rejected = SeedTables.of(p.config()).rejected();
    StreamSpec rawStream = StreamSpec.of(Seed.RAW, p.config());
    List<Arrival> arrivals = new GeneratedScenario(EVENTS, Seed.PIPELINE).arrivals();
    long lines = 0;
    for (Arrival a : arrivals.subList(0, 2)) {
      p.lander().land(a);
      rawStream.run(spark);
      lines += a.files().stream().mapToLong(f -> f.lines()).sum();
    }
    for (Arrival a : arrivals.subList(2, arrivals.size())) {
      p.lander().land(a);
      lines += a.files().stream().mapToLong(f -> f.lines()).sum();
    }
    Maintenance m = new Maintenance(p.lakehouse(), log::add);
    Compaction.Options compact = new Compaction.Options(128L << 20, 2, 5, false);
    AtomicBoolean streaming = new AtomicBoolean(true);
    AtomicInteger compactions = new AtomicInteger();
    CompletableFuture<Void> compacting = CompletableFuture.runAsync(() -> {
      do {
        m.compact(List.of(raw), compact);
        compactions.incrementAndGet();
      } while (streaming.get() && compactions.get() < 20);
    });
    try {
      rawStream.run(spark);
    } finally {
      streaming.set(false);
    }
    compacting.get();
    System.out.println(String.join("\n", log));
    assertThat(m.landing(new LandingCleanup.Options("", false)).removed())
        .as("the raw stream committed every file, dedup and counts none: no landed file may go").isZero();
    long archived = spark.sql("SELECT count(*) FROM " + raw.sql()).first().getLong(0)
        + spark.sql("SELECT count(*) FROM " + rejected.sql()).first().getLong(0);
    assertThat(archived).as("raw + rejected = every line landed, after %s compactions: %s", compactions, log)
        .isEqualTo(lines);
    assertThat(compactions.get()).isPositive();
  }

  @Test
  void restatementBranchesGoOnceTaggedBeyondTheNewestTheirTagsStay() {
    String prefix = TestStack.unique("mt") + "-";
    try (NessieRefs refs = new NessieRefs(stack.endpoints())) {
      for (String run : List.of("r1", "r2", "r3", "r4")) {
        String b = prefix + "restate-" + run;
        refs.createBranch(b, refs.branch(stack.config().nessieRef()));
        // a commit of its own, so that the branches' heads are ordered in time as runs are
        String hash = refs.mark(b, "work of " + run, "test", Map.of()).getHash();
        if (!run.equals("r2")) {
          refs.tag(prefix + "restated-" + run, b, hash);
        }
      }
      Maintenance m = new Maintenance(stack.lakehouse(), log::add);
      var dry = m.branches(new BranchRetention.Options(1, Duration.ofDays(30), prefix, true));
      assertThat(dry).filteredOn(BranchRetention.Decision::delete).extracting(BranchRetention.Decision::branch)
          .containsExactlyInAnyOrder(prefix + "restate-r1", prefix + "restate-r3");
      assertThat(refs.exists(prefix + "restate-r1")).as("a dry run deletes nothing").isTrue();

      m.branches(new BranchRetention.Options(1, Duration.ofDays(30), prefix, false));
      System.out.println(String.join("\n", log));
      assertThat(refs.branches(prefix + "restate-")).containsExactlyInAnyOrder(prefix + "restate-r4",
          prefix + "restate-r2");
      for (String run : List.of("r1", "r3", "r4")) {
        assertThat(refs.exists(prefix + "restated-" + run)).as("tag of %s", run).isTrue();
      }
    }
  }

  /**
   * Two refused arrivals' tags, on an older and a newer staged commit: with the clock at the newer commit and a
   * maximum age half the time between them, the older tag goes and the newer stays; a dry run deletes neither.
   * The clock is given, not waited for; the branches are never touched.
   */
  @Test
  void rejectedTagsStayWhileYoungAndGoBeyondTheMaximumAge() throws Exception {
    String name = TestStack.unique("mt");
    String staging = name + "_ingest";
    String older = RefNames.REJECTED + name + "-old";
    String newer = RefNames.REJECTED + name + "-new";
    try (NessieRefs refs = new NessieRefs(stack.endpoints())) {
      refs.createBranch(staging, refs.branch(stack.config().nessieRef()));
      Branch first = refs.mark(staging, "an arrival a check refused", "test", Map.of());
      refs.tag(older, staging, first.getHash());
      Instant olderAt = commitTime(refs, first);
      Thread.sleep(20); // Nessie stamps commits in milliseconds: two in a row may share one
      Branch second = refs.mark(staging, "another arrival a check refused", "test", Map.of());
      refs.tag(newer, staging, second.getHash());
      Instant newerAt = commitTime(refs, second);
      assertThat(olderAt).as("Nessie stamps commits in order").isBefore(newerAt);
      Duration maxAge = Duration.between(olderAt, newerAt).dividedBy(2);
      BranchRetention retention = new BranchRetention(refs, Clock.fixed(newerAt, ZoneOffset.UTC));

      var dry = retention.rejected(new BranchRetention.Options(10, maxAge, "", true), log::add);
      assertThat(dry).filteredOn(d -> d.tag().startsWith(RefNames.REJECTED + name))
          .extracting(BranchRetention.TagDecision::tag, BranchRetention.TagDecision::delete)
          .containsExactly(tuple(newer, false), tuple(older, true));
      assertThat(refs.exists(older)).as("a dry run deletes nothing").isTrue();

      retention.rejected(new BranchRetention.Options(10, maxAge, "", false), log::add);
      System.out.println(String.join("\n", log));
      assertThat(refs.exists(older)).as("older than %s", maxAge).isFalse();
      assertThat(refs.exists(newer)).as("younger than %s: kept for inspection", maxAge).isTrue();
      assertThat(refs.branch(staging).getHash()).as("the branch stays where it was").isEqualTo(second.getHash());
      assertThat(log).anyMatch(l -> l.startsWith("deleted " + older + " ("))
          .anyMatch(l -> l.startsWith("kept " + newer + " ("));
    }
  }

  private static Instant commitTime(NessieRefs refs, Branch at) {
    return refs.commitTime(at);
  }

  /** Every row of every table on every reference, sorted, as text. */
  private Map<String, List<String>> readAll(List<TableName> tables, List<String> refs) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (String ref : refs) {
      for (TableName t : tables) {
        out.put(t + "@" + ref, spark.sql("SELECT * FROM " + RefQualifiedNames.quote(t + "@" + ref)).collectAsList()
            .stream().map(Object::toString).sorted().toList());
      }
    }
    return out;
  }

  private long deleteFiles(TableName table) {
    return spark.sql("SELECT * FROM " + table.sql() + ".files WHERE content = 1").count();
  }

  private static String keys(List<Storage.ObjectInfo> objects) {
    return String.join(",", objects.stream().map(Storage.ObjectInfo::key).sorted().toList());
  }
}
