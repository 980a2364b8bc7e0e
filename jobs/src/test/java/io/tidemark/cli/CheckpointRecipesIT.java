package io.tidemark.cli;

import io.tidemark.testing.SeedTables;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.Arrival;
import io.tidemark.land.Lander;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.restate.Restatement;
import io.tidemark.services.Endpoints;
import io.tidemark.services.Services;
import io.tidemark.testing.Cli;
import io.tidemark.testing.Docs;
import io.tidemark.testing.NessieRest;
import io.tidemark.testing.OtherHome;
import io.tidemark.testing.Recipes;
import io.tidemark.testing.ReferencePipeline;
import io.tidemark.testing.Steps;
import io.tidemark.testing.TestStack;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recipes of docs/troubleshooting.md for the checkpoints and the disk, run as the page writes them, each after the
 * failure made for real: the newest commit marker of four streams' checkpoints broken (its checksum beside it no
 * longer matching), the checkpoints of the raw archives and the SCD2 stream lost, those of dedup and the windowed
 * counts lost and restored from a backup taken as operations.md says, lost again and rebuilt into new tables, the disk
 * of the checkpoints full, a table dropped from the staging branch. Each fails in the one line the page shows, the
 * recipe releases it, and main then holds what a pipeline that met no failure publishes from the same landed files
 * ({@link ReferencePipeline}; after the rebuild, what it publishes once restated). On a home of its own with the
 * default names, its checkpoints on a small disk of their own (a tmpfs, mounted for the test: a full disk for real),
 * and the home's resident driver, as on a native stack: the commands go to it through the launcher (a crash point to a
 * JVM of its own).
 */
@Steps
class CheckpointRecipesIT {
  private static final Path PAGE = Docs.repo().resolve("docs/troubleshooting.md");
  private static final Path OPERATIONS = Docs.repo().resolve("docs/operations.md");
  private final TestStack stack = TestStack.get();
  private Path dir;
  private Path home;
  private Path checkpoints;
  private TidemarkConfig config;
  private Recipes recipes;
  private OtherHome tables;
  private Storage storage;
  private Lander lander;
  private ReferencePipeline reference;
  private NessieRest nessie;

  @BeforeAll
  void aHomeOfItsOwnWithItsCheckpointsOnASmallDisk(@TempDir Path dir) throws Exception {
    this.dir = dir;
    home = Files.createDirectories(dir.resolve(".tidemark"));
    checkpoints = Files.createDirectories(home.resolve("checkpoints"));
    shell("mount -t tmpfs -o size=48m tidemark-test-checkpoints " + checkpoints);
    Map<String, String> env = TestStack.environment(home);
    config = TidemarkConfig.of(env, Map.of());
    recipes = new Recipes(PAGE, dir, env);
    succeeds("bootstrap");
    Cli.Result driver = Cli.run(recipes.env(), "driver", "start");
    assertThat(driver.exitCode()).as("%s", driver).isZero();
    Endpoints endpoints = new Services(config).endpoints();
    tables = new OtherHome(stack.spark(), config, endpoints);
    storage = Storage.connect(config, endpoints);
    lander = new Lander(storage, config.landingBucket(), "");
    nessie = new NessieRest(URI.create("http://127.0.0.1:" + env.get("TIDEMARK_NESSIE_PORT") + "/api/v2"));
    reference = new ReferencePipeline(stack, "checkpoint_reference", dir.resolve("reference-checkpoints"), storage,
        config, tables);
    lander.land(SeedScenarios.ALL.arrivals().get(0));
    succeeds("stream", "all");
    succeeds("publish");
    reference.takeIn();
  }

  @AfterAll
  void stopItsServicesAndTheDisk() {
    if (storage != null) {
      storage.close();
    }
    if (config != null) {
      Cli.run(recipes.env(), "driver", "stop");
      new Services(TidemarkConfig.of(recipes.env(), Map.of())).down();
    }
    if (checkpoints != null) {
      shell("umount " + checkpoints + " || true");
    }
  }

  /**
   * The newest commit marker of four streams broken: `stream all` says what raw-companies did, then each broken file a
   * line with the command that moves it and its checksum aside; the recipe's commands, filled in, release them.
   */
  @Test
  @Order(1)
  void aBrokenCommitMarkerOfEachStreamIsOneLineEachAndItsRecipeReleasesIt() throws IOException {
    List<String> broken = List.of("raw", "dedup", "windowed-counts", "scd2");
    for (String stream : broken) {
      Path commits = checkpoints.resolve(stream).resolve("commits");
      long newest;
      try (Stream<Path> files = Files.list(commits)) {
        newest = files.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d+")).mapToLong(Long::parseLong)
            .max().orElseThrow();
      }
      Files.writeString(commits.resolve(Long.toString(newest)), "\n{\"broken\":", java.nio.file.StandardOpenOption.APPEND);
    }
    lander.land(SeedScenarios.ALL.arrivals().get(1));
    Cli.Result r = Cli.run(recipes.env(), "stream", "all");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(1);
    assertThat(r.out()).as("what the stream that did commit took in is said").contains("raw-companies: ");
    assertThat(r.errLines()).as("%s", r).hasSize(broken.size());
    Pattern line = Pattern.compile("tidemark: (also )?([a-z0-9-]+): its checkpoint file (\\S+)/commits/(\\d+) is broken "
        + "\\(its checksum \\(\\S+\\) does not match it\\); move it and its checksum out of the checkpoint, then run "
        + "the stream again: mkdir -p \\S+ && mv \\S+ \\S+ \\S+/; see docs/troubleshooting.md#a-lost-or-corrupt-checkpoint"
        // the first line names the run's log too
        + "( \\[details in \\S+; --debug prints them here\\])?");
    List<String> block = Docs.recipeBlocks(PAGE, "a-lost-or-corrupt-checkpoint").get(0);
    for (String err : r.errLines()) {
      Matcher m = line.matcher(err);
      assertThat(m.matches()).as("%s", err).isTrue();
      assertThat(m.group(3)).isEqualTo(checkpoints.resolve(m.group(2)).toString());
      // the recipe's lines that move the file, for this stream
      for (String l : block.subList(0, 2)) {
        Cli.Result moved = recipes.line(l.replace("<stream>", m.group(2)).replace("<N>", m.group(4)));
        assertThat(moved.exitCode()).as("%s: %s", l, moved).isZero();
      }
    }
    for (String l : block.subList(2, block.size())) {
      Cli.Result ran = recipes.line(l);
      assertThat(ran.exitCode()).as("%s: %s", l, ran).isZero();
    }
    reference.assertMainAsHere(SeedTables.of(config));
  }

  /** The checkpoints of the raw archives and of the SCD2 stream lost: the streams take in what they lack, once. */
  @Test
  @Order(2)
  void theStatelessStreamsTakeInWhatTheyLackOnALostCheckpoint() {
    for (String stream : List.of("raw", "raw-companies", "scd2")) {
      shell("rm -rf " + checkpoints.resolve(stream));
    }
    lander.land(SeedScenarios.ALL.arrivals().get(2));
    List<Cli.Result> ran = recipes.run("a-lost-checkpoint", 0, Map.of());
    assertThat(ran.get(0).out()).contains("raw: ").contains("scd2: ");
    assertThat(ran.get(1).out()).contains("published events arrival 3, companies arrival 3, ");
    reference.assertMainAsHere(SeedTables.of(config));
  }

  /**
   * A backup taken as operations.md says; then the checkpoints of dedup and the counts lost: they refuse to start over,
   * a line each; the recipe restores the backup, lands again what landed since, and publishes it.
   */
  @Test
  @Order(3)
  void statefulStreamsRefuseALostCheckpointAndTheBackupRestoresIt() {
    for (String l : Docs.codeLines(Docs.section(OPERATIONS, "backups")).subList(0, 3)) {
      assertThat(recipes.line(l).exitCode()).as("%s", l).isZero();
    }
    lander.land(SeedScenarios.ALL.arrivals().get(3));
    succeeds("stream", "all");
    succeeds("publish");
    reference.takeIn();
    for (String stream : List.of("dedup", "windowed-counts")) {
      shell("rm -rf " + checkpoints.resolve(stream));
    }
    Cli.Result r = Cli.run(recipes.env(), "stream", "all");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(1);
    assertThat(r.errLines()).as("%s", r).hasSize(2).allSatisfy(l -> assertThat(l)
        .containsPattern("tidemark: (also )?(dedup|windowed-counts): its checkpoint \\S+ has no batch, while "
            + "facts\\.(events|event_counts) holds its batches( up to arrival 3)?: started over, it would read every "
            + "landed arrival again")
        .endsWith("see docs/troubleshooting.md#a-lost-or-corrupt-checkpoint"));

    List<Cli.Result> ran = recipes.run("a-lost-checkpoint", 1, Map.of());
    assertThat(ran.get(ran.size() - 1).out()).contains("published companies arrival 4, ");
    reference.assertMainAsHere(SeedTables.of(config));
  }

  /**
   * Lost again, with no backup: the recipe rebuilds the two tables under new names on new checkpoints; they hold what
   * the reference holds once restated (every event, late ones too), the other tables what it holds.
   */
  @Test
  @Order(4)
  void withNoBackupTheRecipeRebuildsTheTablesAsARestatementMakesThem() throws Exception {
    for (String stream : List.of("dedup", "windowed-counts")) {
      shell("rm -rf " + checkpoints.resolve(stream));
    }
    assertThat(Cli.run(recipes.env(), "stream", "all").exitCode()).as("lost again: refused").isEqualTo(1);
    List<Cli.Result> ran = recipes.run("a-lost-checkpoint", 2, Map.of());
    assertThat(ran.get(ran.size() - 1).out()).contains("published ");
    TidemarkConfig rebuilt = TidemarkConfig.of(recipes.env(), Map.of());
    assertThat(SeedTables.of(rebuilt).eventCounts().toString()).isEqualTo("facts.event_counts_2");
    Restatement.Result restated = new Restatement(reference.pipeline().lakehouse(),
        Restatement.Options.defaults(reference.pipeline().config()).withPrefix("checkpoint-reference-")).run();
    assertThat(restated.merged()).as("the reference's restatement corrected something").isTrue();
    reference.pipeline().publish();
    reference.assertMainAsHere(SeedTables.of(rebuilt));
  }

  /**
   * The disk of the checkpoints full: the stream that cannot write says so in its line, with its log; space freed,
   * the full disk's recipe and the failed stream run's release it.
   */
  @Test
  @Order(5)
  void aFullDiskIsOneLineAndItsRecipeReleasesIt() throws IOException {
    shell("dd if=/dev/zero of=" + checkpoints.resolve("filler") + " bs=1M 2> /dev/null || true");
    lander.land(new Arrival(4, List.of(LandingFile.of("events", "late.jsonl",
        "{\"event_id\":700,\"company_id\":\"c3\",\"amount\":2.0,\"event_ts\":\"2026-01-01T00:40:00Z\"}\n"))));
    Cli.Result r = Cli.run(recipes.env(), "stream", "all");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(1);
    assertThat(r.errLines().get(0)).as("%s", r).contains("No space left on device").contains("[details in " + home
        .resolve("logs"));

    Files.delete(checkpoints.resolve("filler")); // free space: what the person does first
    List<Cli.Result> ran = recipes.run("a-full-disk", Map.of());
    assertThat(ran.get(0).out()).as("du").contains("checkpoints");
    assertThat(ran.get(ran.size() - 1).out()).contains("published events arrival 4, ");
    assertThat(recipes.run("a-failed-stream-run", Map.of()).get(0).out()).as("the newest run's log")
        .contains("tidemark-stream-all-");
    reference.assertMainAsHere(SeedTables.of(TidemarkConfig.of(recipes.env(), Map.of())));
  }

  /** A table dropped from the staging branch: the streams stop in one line; ingest made main's head again. */
  @Test
  @Order(6)
  void aTableMissingOnTheStagingBranchIsOneLineAndItsRecipeReleasesIt() {
    TidemarkConfig now = TidemarkConfig.of(recipes.env(), Map.of());
    Map<String, String> onIngest = new java.util.HashMap<>(recipes.env());
    onIngest.put("TIDEMARK_NESSIE_REF", "ingest");
    assertThat(Cli.run(onIngest, "sql", "DROP TABLE " + SeedTables.of(now).events()).exitCode()).isZero();
    // nothing new landed: the streams have nothing to commit after the drop, which the recipe's reset assumes
    Cli.Result r = Cli.run(recipes.env(), "stream", "all");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(1);
    assertThat(r.errLines().get(0)).as("%s", r).isEqualTo("tidemark: table " + SeedTables.of(now).events() + " is on main but"
        + " not on the staging branch ingest, where the streams write; see "
        + "docs/troubleshooting.md#a-table-missing-on-the-staging-branch");

    List<Cli.Result> ran = recipes.run("a-table-missing-on-the-staging-branch", Map.of());
    assertThat(nessie.diff("main", "ingest")).as("nothing of the drop left to publish").isEmpty();
    reference.assertMainAsHere(SeedTables.of(now));
  }

  private static void shell(String command) {
    try {
      Process p = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new AssertionError(command + " failed (the full disk needs a tmpfs: root, or CAP_SYS_ADMIN): " + out);
      }
    } catch (IOException e) {
      throw new AssertionError("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private Cli.Result succeeds(String... args) {
    Cli.Result r = Cli.run(recipes.env(), args);
    assertThat(r.exitCode()).as("tidemark %s: %s", String.join(" ", args), r).isZero();
    return r;
  }
}
