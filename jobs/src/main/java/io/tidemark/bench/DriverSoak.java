package io.tidemark.bench;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.driver.DriverAddress;
import io.tidemark.driver.DriverClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A soak of the resident driver: many mixed commands through one driver, as the arrivals DAG and a person run them
 * (land, stream all, publish, reads, checks, a restatement now and then, and commands that fail: bad SQL, a bad
 * option), on a pipeline with branches of its own. Every {@code sampleEvery} commands the driver is asked for what it
 * holds after a full GC (heap, threads, open files, commands' scopes), and the slope of each over the commands is
 * printed. The first {@code compareRounds} rounds also run every command in fresh JVMs on a second pipeline, and each
 * result (exit code and output, names and times masked) must be the same.
 */
public final class DriverSoak {
  private static final Pattern HOLDS = Pattern.compile(
      "heap (\\d+) of \\d+ MB, (\\d+) threads, (\\d+) open files, (\\d+) open scopes");

  /** What to run: how many commands, how many rounds to compare with fresh JVMs, how often to sample. */
  public record Options(int commands, int compareRounds, int sampleEvery, int eventsPerArrival) {}

  /** What the driver held after a full GC, once {@code done} commands had run. */
  record Sample(int done, long heapMb, long threads, long openFiles, long scopes) {}

  private final TidemarkConfig base;
  private final PrintWriter out;
  private final Path dir;

  public DriverSoak(TidemarkConfig base, PrintWriter out, Path dir) {
    this.base = base;
    this.out = out;
    this.dir = dir;
  }

  /** The soak; the number of results that differed from the fresh JVMs' (0 is the goal). */
  public int run(Options o) throws Exception {
    FreshJvm fresh = new FreshJvm(null, FreshJvm.ClassArchive.MAP, dir);
    FreshJvm driven = fresh.viaDriver();
    TidemarkConfig a = LatencyBench.ownBranches(base, dir, "soak_fresh");
    TidemarkConfig b = LatencyBench.ownBranches(base, dir, "soak_driver");
    List<Function<TidemarkConfig, List<String>>> round = round(o);
    int rounds = (o.commands() + round.size() - 1) / round.size();
    out.printf(Locale.ROOT, "== %d commands through one resident driver (%d rounds of %d: land, stream all, publish, "
        + "reads, checks, a restatement every 10th round, a bad statement, a bad option); the first %d round(s) "
        + "also in fresh JVMs%n", o.commands(), rounds, round.size(), o.compareRounds());
    boolean started = fresh.run(b, "driver", "status").exit() != 0;
    if (started) {
      fresh.succeed(b, "driver", "start");
    }
    DriverAddress address = DriverAddress.ofHome(b.home());
    List<Sample> samples = new ArrayList<>();
    int done = 0;
    int mismatches = 0;
    int failed = 0;
    double seconds = 0;
    try {
      LatencyBench.publishedBranchOfItsOwn(driven, base);
      samples.add(sample(address, 0));
      driven.succeed(b, "bootstrap");
      if (o.compareRounds() > 0) {
        fresh.succeed(a, "bootstrap");
      }
      out.printf(Locale.ROOT, "%9s %8s %8s %11s %7s %10s %9s%n", "commands", "heap MB", "threads", "open files",
          "scopes", "failed", "mean s");
      print(samples.get(0), 0, 0);
      for (int r = 1; r <= rounds && done < o.commands(); r++) {
        for (Function<TidemarkConfig, List<String>> command : round) {
          if (done >= o.commands()) {
            break;
          }
          List<String> args = command.apply(b);
          if (args.isEmpty()) {
            continue;  // a command this round does not run (the restatement but every 10th round)
          }
          List<String> withArrival = withRound(args, r, rounds, o);
          FreshJvm.Run d = driven.run(b, withArrival.toArray(String[]::new));
          seconds += d.seconds();
          done++;
          if (d.exit() != 0) {
            failed++;
          }
          if (d.output().contains("resident driver")) {
            out.println("  not served by the driver: tidemark " + String.join(" ", withArrival) + ": "
                + d.output().strip());
            mismatches++;
          }
          if (r <= o.compareRounds()) {
            FreshJvm.Run f = fresh.run(a, withRound(command.apply(a), r, rounds, o).toArray(String[]::new));
            if (f.exit() != d.exit() || !LatencyBench.masked(f.output(), a).equals(LatencyBench.masked(d.output(),
                b))) {
              mismatches++;
              out.println("  DIFFERENT from a fresh JVM: tidemark " + String.join(" ", withArrival) + "\n    fresh "
                  + f.exit() + ": " + f.output().strip().replace("\n", "\n      ") + "\n    driver " + d.exit() + ": "
                  + d.output().strip().replace("\n", "\n      "));
            }
          }
          if (done % o.sampleEvery() == 0) {
            Sample s = sample(address, done);
            samples.add(s);
            print(s, failed, seconds / done);
          }
        }
      }
    } finally {
      if (started) {
        fresh.run(b, "driver", "stop");
      }
    }
    out.printf(Locale.ROOT, "%d commands, %d of them failed as they should (bad statement, bad option) or not; mean "
        + "%.2f s a command; %d result(s) not as in fresh JVMs (or not served by the driver)%n", done, failed,
        done == 0 ? 0 : seconds / done, mismatches);
    slopes(samples);
    out.flush();
    return mismatches;
  }

  /** One round's commands on a pipeline; an empty one is skipped. */
  private static List<Function<TidemarkConfig, List<String>>> round(Options o) {
    List<Function<TidemarkConfig, List<String>>> r = new ArrayList<>();
    r.add(c -> List.of("land", "--scenario", "generated", "--arrival", "ROUND"));
    r.add(c -> List.of("stream", "all"));
    r.add(c -> List.of("publish"));
    r.add(c -> List.of("sql", "--format", "csv", "SELECT count(*) FROM " + SeedPipeline.events(c)));
    r.add(c -> List.of("check"));
    r.add(c -> List.of("sql", "SELECT no_such_column FROM " + SeedPipeline.events(c)));
    r.add(c -> List.of("stream", "all", "--no-such-option"));
    r.add(c -> List.of("restate", "--run-id", SeedPipeline.events(c).namespace().replace('_', '-') + "-ROUND"));
    return r;
  }

  /** The round's arrival of the generator in place of ROUND; the restatement only every 10th round. */
  private static List<String> withRound(List<String> args, int round, int rounds, Options o) {
    if (args.get(0).equals("restate") && round % 10 != 0) {
      return List.of("publish", "--dry-run");
    }
    List<String> out = new ArrayList<>();
    for (String a : args) {
      out.add(a.replace("ROUND", Integer.toString(round)));
    }
    if (args.get(0).equals("land")) {
      out.addAll(List.of("--seed", "7", "--events", Integer.toString(o.eventsPerArrival() * rounds), "--arrivals",
          Integer.toString(rounds), "--changes", Integer.toString(rounds * 5), "--keys", "50"));
    }
    return out;
  }

  private Sample sample(DriverAddress address, int done) throws IOException {
    String status = DriverClient.ping(address, true);
    Matcher m = HOLDS.matcher(status);
    if (!m.find()) {
      throw new IllegalStateException("the driver's status says nothing of what it holds: " + status);
    }
    return new Sample(done, Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
        Long.parseLong(m.group(4)));
  }

  private void print(Sample s, int failed, double mean) {
    out.printf(Locale.ROOT, "%9d %8d %8d %11d %7d %10d %9.2f%n", s.done(), s.heapMb(), s.threads(), s.openFiles(),
        s.scopes(), failed, mean);
    out.flush();
  }

  /** Least-squares slopes per 1000 commands, over every sample after the first tenth (the warm-up). */
  private void slopes(List<Sample> samples) {
    int last = samples.get(samples.size() - 1).done();
    List<Sample> after = samples.stream().filter(s -> s.done() >= last / 10 && s.done() > 0).toList();
    if (after.size() < 2) {
      out.println("slopes: too few samples (raise the commands or lower --sample-every)");
      return;
    }
    out.printf(Locale.ROOT, "slopes per 1000 commands, after the first tenth (%d samples, commands %d-%d): heap %+.1f "
            + "MB, threads %+.1f, open files %+.1f, open scopes %+.1f%n", after.size(), after.get(0).done(), last,
        slope(after, Sample::heapMb), slope(after, Sample::threads), slope(after, Sample::openFiles),
        slope(after, Sample::scopes));
  }

  static double slope(List<Sample> samples, java.util.function.ToLongFunction<Sample> y) {
    double n = samples.size();
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    for (Sample s : samples) {
      double x = s.done();
      double v = y.applyAsLong(s);
      sx += x;
      sy += v;
      sxx += x * x;
      sxy += x * v;
    }
    double d = n * sxx - sx * sx;
    return d == 0 ? 0 : (n * sxy - sx * sy) / d * 1000;
  }
}
