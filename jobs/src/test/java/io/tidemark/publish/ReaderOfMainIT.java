package io.tidemark.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.CommitKeys;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.stream.BatchArrivals;
import io.tidemark.pipeline.StreamDef;
import io.tidemark.testing.SeedTables;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.StagedPipeline;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.projectnessie.model.CommitMeta;
import org.projectnessie.model.Content;
import org.projectnessie.model.ContentKey;
import org.projectnessie.model.LogResponse.LogEntry;

/**
 * What a reader of the published branch could ever have seen: after six arrivals through {@code stream all} and
 * {@code publish}, EVERY commit of the published branch's log (the complete record of its states, not a sample taken
 * while the streams ran) is read table by table at its hash. At each: either no table of the pipeline or all of
 * them; every stream has taken in the same arrivals (the stream-batches records and the raw archives' arrival
 * column name the newest arrival of each dataset up to the one the commit published); and the derived tables are
 * what the streams make of that commit's raw archive (see {@link CommitView}). The staging branch's log, walked the
 * same way, is what main showed before publish (the streams committed straight to it, one table at a time): there,
 * between one stream's commit and the next, the tables disagree.
 */
class ReaderOfMainIT extends StackTest {
  /** After the seed's four: events in each and company changes, each finalizing windows and changing companies. */
  private static final List<Arrival> MORE = List.of(
      new Arrival(5, List.of(
          LandingFile.of(SeedScenarios.EVENTS, "more.jsonl", event(201, "c1", "00:25:00") + event(202, "c2", "00:31:00")
              + event(203, "c3", "00:12:00") + event(104, "c1", "00:06:00")),
          LandingFile.of(SeedScenarios.COMPANIES, "more.jsonl",
              "{\"company_id\":\"c4\",\"name\":\"Dyn\",\"tier\":\"bronze\",\"change_ts\":\"2026-01-01T05:00:00Z\"}\n"))),
      new Arrival(6, List.of(
          LandingFile.of(SeedScenarios.EVENTS, "more.jsonl", event(204, "c3", "00:45:00") + event(205, "c2", "00:26:00")
              + event(206, "c1", "00:46:00")),
          LandingFile.of(SeedScenarios.COMPANIES, "more.jsonl",
              "{\"company_id\":\"c1\",\"name\":\"Acme\",\"tier\":\"silver\",\"change_ts\":\"2026-01-01T06:00:00Z\"}\n"
              + "{\"company_id\":\"c4\",\"name\":\"Dyn\",\"tier\":\"gold\",\"change_ts\":\"2026-01-01T04:00:00Z\"}\n"))));

  private static String event(int id, String company, String time) {
    return "{\"event_id\":" + id + ",\"company_id\":\"" + company + "\",\"amount\":" + id + ".5,\"event_ts\":"
        + "\"2026-01-01T" + time + "Z\"}\n";
  }

  @Test
  void everyCommitOfMainShowsWholeArrivalsAndTheStagingBranchDoesNot() throws Exception {
    StagedPipeline p = new StagedPipeline(stack, "readers", tmp.resolve("checkpoints"));
    List<Arrival> arrivals = new ArrayList<>(SeedScenarios.ALL.arrivals());
    arrivals.addAll(MORE);
    for (Arrival a : arrivals) {
      p.land(a);
      p.streamAll();
      Publisher.Result r = p.publish();
      System.out.println(r.summary());
      assertThat(r.mergeHash()).as("arrival %d published", a.number()).isNotNull();
      assertThat(r.arrivals()).isEqualTo(described(p, a));
    }

    try (NessieRefs refs = new NessieRefs(stack.endpoints())) {
      Set<String> before = refs.log("main").map(e -> e.getCommitMeta().getHash()).collect(Collectors.toSet());
      List<ContentKey> keys = SeedTables.of(p.config()).all().stream().map(Staged::key).toList();

      // the published branch: every commit of its own, oldest first
      List<LogEntry> main = ownLog(refs, p.published(), before);
      int walked = 0;
      int withTables = 0;
      int arrival = 0;
      for (LogEntry e : main) {
        CommitMeta meta = e.getCommitMeta();
        walked++;
        int present = present(refs, p.published(), meta.getHash(), keys);
        assertThat(present).as("commit %s (%s): the pipeline's tables all or none", meta.getHash(),
            meta.getMessage()).isIn(0, keys.size());
        if (present == 0) {
          continue;
        }
        withTables++;
        assertThat(meta.getProperties()).as("a commit of %s: bootstrap's or publish's", p.published())
            .containsKey(CommitKeys.STAGE);
        arrival = Math.max(arrival, meta.getProperties().entrySet().stream()
            .filter(kv -> kv.getKey().startsWith(CommitKeys.ARRIVALS + ".")).map(kv -> BatchArrivals.parse(kv.getValue()))
            .flatMap(java.util.Set::stream)
            .mapToInt(Integer::intValue).max().orElse(0));
        CommitView v = new CommitView(p.spark(), p.config(), p.published(), meta.getHash());
        String at = "commit " + meta.getHash() + " (" + meta.getMessage() + ")";
        Map<String, Integer> expected = new TreeMap<>();
        for (StreamDef d : p.config().pipeline().streams()) {
          int newest = newestWith(arrivals, d.feed().name(), arrival);
          if (newest > 0) {
            expected.put(d.name(), newest);
          }
        }
        assertThat(v.recorded).as("%s: the arrivals each stream has taken in", at).isEqualTo(expected);
        assertThat(CommitView.newest(v.rawEvents)).as("%s: raw events' newest arrival", at)
            .isEqualTo(newestWith(arrivals, SeedScenarios.EVENTS, arrival));
        assertThat(CommitView.newest(v.rawChanges)).as("%s: raw company changes' newest arrival", at)
            .isEqualTo(newestWith(arrivals, SeedScenarios.COMPANIES, arrival));
        assertThat(v.disagreements(tmp.resolve("main"))).as("%s: the derived tables against the raw archive", at)
            .isEmpty();
      }
      System.out.printf("%s: %d commits walked, %d with the pipeline's tables, all consistent; arrivals 1-%d%n",
          p.published(), walked, withTables, arrival);
      assertThat(arrival).isEqualTo(arrivals.size());
      assertThat(withTables).as("bootstrap's publish and one per arrival").isEqualTo(arrivals.size() + 1);

      // the staging branch: every stream commit, as main showed them before publish
      List<LogEntry> staging = ownLog(refs, p.staging(), before);
      Map<String, List<String>> disagreeing = new LinkedHashMap<>();
      int stagingWithTables = 0;
      for (LogEntry e : staging) {
        CommitMeta meta = e.getCommitMeta();
        if (present(refs, p.staging(), meta.getHash(), keys) < keys.size()) {
          continue; // bootstrap still creating the tables, one commit each
        }
        stagingWithTables++;
        List<String> d = new CommitView(p.spark(), p.config(), p.staging(), meta.getHash())
            .disagreements(tmp.resolve("staging"));
        if (!d.isEmpty()) {
          disagreeing.put(meta.getHash().substring(0, 8) + " " + meta.getMessage().lines().findFirst().orElse(""), d);
        }
      }
      System.out.printf("%s: %d commits walked, %d with every table, %d where the tables disagree:%n",
          p.staging(), staging.size(), stagingWithTables, disagreeing.size());
      disagreeing.forEach((c, d) -> System.out.println("  " + c + "\n    " + String.join("\n    ", d)));
      assertThat(disagreeing).as("a reader of the staging branch (main before publish) sees tables of one dataset "
          + "at different arrivals").isNotEmpty();
      // the case: the counts of one arrival next to the raw events of another (arrival 2 finalizes 5
      // windows; its raw and counts commits are two commits, in either order)
      assertThat(disagreeing.values()).as("counts that disagree with the raw events of the same commit")
          .anyMatch(d -> d.stream().anyMatch(x -> x.startsWith("event counts:")));
    }
  }

  /** The newest of the first {@code upTo} arrivals with files of {@code feed}, 0 for none. */
  private static int newestWith(List<Arrival> arrivals, String feed, int upTo) {
    return arrivals.stream().filter(a -> a.number() <= upTo)
        .filter(a -> a.files().stream().anyMatch(f -> f.feed().equals(feed)))
        .mapToInt(Arrival::number).max().orElse(0);
  }

  /** An arrival as publish names it: the arrival of each feed it has files of, in the pipeline's order. */
  private static String described(StagedPipeline p, Arrival a) {
    return p.config().pipeline().feeds().stream()
        .filter(f -> a.files().stream().anyMatch(x -> x.feed().equals(f.name())))
        .map(f -> f.name() + " arrival " + a.number()).collect(Collectors.joining(", "));
  }

  /** The commits of {@code ref} that are not in {@code before} (the shared main's), oldest first. */
  private static List<LogEntry> ownLog(NessieRefs refs, String ref, Set<String> before) {
    List<LogEntry> out = new ArrayList<>(refs.log(ref).filter(e -> !before.contains(e.getCommitMeta().getHash()))
        .toList());
    Collections.reverse(out);
    return out;
  }

  private static int present(NessieRefs refs, String ref, String hash, List<ContentKey> keys) {
    Map<ContentKey, Content> found = refs.contents(ref, hash, keys);
    return new HashSet<>(found.keySet()).size();
  }
}
