package io.tidemark.cli;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.land.Arrival;
import io.tidemark.land.Feed;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.lakehouse.Storage;
import io.tidemark.land.LandedPrefix;
import io.tidemark.land.Lander;
import io.tidemark.land.LandingException;
import io.tidemark.land.LandingFile;
import io.tidemark.land.LocalFiles;
import io.tidemark.land.LocalLanding;
import io.tidemark.land.Scenario;
import io.tidemark.land.SeedScenarios;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "land", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Write arrivals of JSON lines into the landing zone with the MinIO client:",
        "s3://<landing bucket>/[<prefix>/]<dataset>/arrival=NNNN/<file>. Arrivals are immutable: landing the same",
        "arrival again is a no-op; other content for a landed file is refused.",
        "Scenarios: seed (the three below together), seed-counts, seed-dedup, seed-scd2, generated.",
        "--replay lands arrivals laid out elsewhere (a local directory, or s3://bucket/prefix) with their numbers."})
final class LandCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  static final class Source {
    @Option(names = "--scenario", paramLabel = "NAME", description = "A named scenario (see above).")
    String scenario;

    @Option(names = "--from", paramLabel = "PATH", description = "A local file, or a directory of files.")
    Path from;

    @Option(names = "--replay", paramLabel = "LOCATION",
        description = "Arrivals landed before under a local directory or s3://bucket/prefix, laid out as "
            + "<dataset>/arrival=NNNN/<file> (what --to-dir and --prefix write): each lands with its number.")
    String replay;
  }

  @Option(names = "--arrival", paramLabel = "K",
      description = "Only arrival K of the scenario; with --from, the arrival number to use "
          + "(default: the next one, unless identical files already landed).")
  Integer arrival;

  @Option(names = "--dataset", paramLabel = "NAME", defaultValue = "events",
      description = "With --from: events or companies (default: ${DEFAULT-VALUE}).")
  String dataset;

  @Option(names = "--prefix", paramLabel = "PREFIX", defaultValue = "",
      description = "Prefix inside the landing bucket, e.g. to keep test runs apart.")
  String prefix;

  @Option(names = "--to-dir", paramLabel = "DIR",
      description = "Write the files under DIR on the local disk instead of the landing zone (same layout).")
  Path toDir;

  @ArgGroup(exclusive = false, heading = "Generator (--scenario generated):%n")
  Generator generator = new Generator();

  static final class Generator {
    @Option(names = "--seed", defaultValue = "42", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--events", defaultValue = "10000", description = "Distinct events (default: ${DEFAULT-VALUE}).")
    int events;

    @Option(names = "--companies", defaultValue = "20", description = "Companies in events (default: ${DEFAULT-VALUE}).")
    int companies;

    @Option(names = "--duplicate-rate", defaultValue = "0.02", description = "Default: ${DEFAULT-VALUE}.")
    double duplicateRate;

    @Option(names = "--late-rate", defaultValue = "0.01", description = "Default: ${DEFAULT-VALUE}.")
    double lateRate;

    @Option(names = "--jumps", defaultValue = "1", description = "Far-future events (default: ${DEFAULT-VALUE}).")
    int jumps;

    @Option(names = "--malformed-rate", defaultValue = "0.01", description = "Default: ${DEFAULT-VALUE}.")
    double malformedRate;

    @Option(names = "--arrivals", defaultValue = "5", description = "Default: ${DEFAULT-VALUE}.")
    int arrivals;

    @Option(names = "--changes", defaultValue = "0",
        description = "Company dimension changes (default: ${DEFAULT-VALUE}).")
    int changes;

    @Option(names = "--keys", defaultValue = "100", description = "Companies in changes (default: ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--start", defaultValue = "2026-01-01T00:00:00Z",
        description = "Event time of the first arrival (default: ${DEFAULT-VALUE}).")
    Instant start;

    @Option(names = "--minutes-per-arrival", defaultValue = "60", description = "Default: ${DEFAULT-VALUE}.")
    int minutesPerArrival;

    GeneratorSpec spec() {
      return new GeneratorSpec(seed, events, companies, duplicateRate, lateRate, jumps, malformedRate, arrivals,
          changes, keys, start, minutesPerArrival);
    }
  }

  @Override
  public Integer call() {
    TidemarkConfig config = Tidemark.root(spec).config();
    PrintWriter out = spec.commandLine().getOut();
    if (toDir != null && (source.replay == null || !LandedPrefix.isS3(source.replay))) {
      writeLocal(arrivals(null), out);
      return 0;
    }
    try (Lakehouse lh = Lakehouse.open(config, "tidemark land")) {
      List<Arrival> arrivals = arrivals(lh.storage());
      if (toDir != null) {
        writeLocal(arrivals, out);
        return 0;
      }
      if (!lh.storage().bucketExists(config.landingBucket())) {
        throw new LandingException("landing bucket " + config.landingBucket() + " does not exist; run: tidemark bootstrap");
      }
      Lander lander = new Lander(lh.storage(), config.landingBucket(), prefix);
      if (source.from != null) {
        arrivals = List.of(fromLocal(lander));
      }
      land(lander, arrivals, out);
    }
    return 0;
  }

  static void land(Lander lander, List<Arrival> arrivals, PrintWriter out) {
    for (Arrival a : arrivals) {
      for (Lander.Outcome o : lander.land(a)) {
        out.printf("arrival %d: %s  %d line(s), %d bytes  %s%n", a.number(), o.uri(), o.lines(), o.bytes(),
            o.written() ? "landed" : "already there, unchanged");
      }
    }
    out.flush();
  }

  /** The arrivals to land; {@code storage} reads an S3 --replay location. */
  private List<Arrival> arrivals(Storage storage) {
    if (source.from != null) {
      return List.of();
    }
    Scenario scenario = source.replay != null ? LandedPrefix.read(source.replay, storage) : scenario(source.scenario);
    List<Arrival> all = scenario.arrivals();
    if (arrival == null) {
      return all;
    }
    return List.of(all.stream().filter(a -> a.number() == arrival).findFirst()
        .orElseThrow(() -> new LandingException("--arrival " + arrival + ": "
            + (source.replay != null ? source.replay : "scenario " + scenario.name()) + " has arrivals "
            + numbers(all))));
  }

  /** 1..n, or the numbers one by one when some are missing. */
  private static String numbers(List<Arrival> arrivals) {
    int last = arrivals.isEmpty() ? 0 : arrivals.get(arrivals.size() - 1).number();
    if (arrivals.size() == last) {
      return "1.." + last;
    }
    return arrivals.stream().map(a -> String.valueOf(a.number())).collect(Collectors.joining(", "));
  }

  private Scenario scenario(String name) {
    if ("generated".equals(name)) {
      try {
        return new GeneratedScenario(generator.spec());
      } catch (IllegalArgumentException e) {
        throw new LandingException("generator: " + e.getMessage());
      }
    }
    return SeedScenarios.all().stream().filter(s -> s.name().equals(name)).findFirst()
        .orElseThrow(() -> new LandingException("--scenario " + name + ": unknown; choose one of seed, seed-counts, "
            + "seed-dedup, seed-scd2, generated"));
  }

  private Arrival fromLocal(Lander lander) {
    Feed ds;
    try {
      ds = Feed.parse(dataset);
    } catch (IllegalArgumentException e) {
      throw new LandingException("--dataset: " + e.getMessage());
    }
    List<LandingFile> files = LocalFiles.read(source.from, ds);
    if (arrival != null) {
      return new Arrival(arrival, files);
    }
    OptionalInt same = lander.findIdentical(ds, files);
    return new Arrival(same.orElse(lander.lastArrival(ds) + 1), files);
  }

  private void writeLocal(List<Arrival> arrivals, PrintWriter out) {
    if (source.from != null) {
      throw new LandingException("--to-dir writes scenarios; with --from the files are local already");
    }
    for (Path p : LocalLanding.write(toDir, prefix, arrivals)) {
      out.println("wrote " + p);
    }
    out.flush();
  }

}
