package io.tidemark.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.land.Arrival;
import io.tidemark.land.ArrivalNumbers;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.LandedPrefix;
import io.tidemark.land.Lander;
import io.tidemark.land.LandingException;
import io.tidemark.land.LandingFile;
import io.tidemark.land.LandingLayout;
import io.tidemark.land.LocalFiles;
import io.tidemark.land.LocalLanding;
import io.tidemark.land.Scenario;
import io.tidemark.land.Scenarios;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "land", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Write arrivals of JSON lines into the landing zone with the MinIO client.",
        "The layout: s3://<landing bucket>/[<prefix>/]" + LandingLayout.SHAPE + ". Arrivals are immutable: landing "
            + "the same arrival again is a no-op; other content for a landed file is refused.",
        "--replay lands arrivals laid out elsewhere (a local directory, or s3://bucket/prefix) with their numbers.",
        "--list prints the scenarios and the generator's defaults; --count-arrivals prints how many arrivals one "
            + "has."})
final class LandCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Spec
  CommandSpec spec;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  static final class Source {
    @Option(names = "--scenario", paramLabel = "<name>", completionCandidates = ScenarioNames.class,
        description = "A named scenario: ${COMPLETION-CANDIDATES} (seed is the three seed-* together).")
    String scenario;

    @Option(names = "--from", paramLabel = "<path>", description = "A local file, or a directory of files.")
    Path from;

    @Option(names = "--replay", paramLabel = "<location>",
        description = "Arrivals landed before under a local directory or s3://bucket/prefix, laid out as "
            + LandingLayout.SHAPE + " (what --to-dir and --prefix write): each lands with its number.")
    String replay;

    @Option(names = "--list",
        description = "Print the scenarios (name, arrivals, what each shows) and the generator's defaults as JSON; "
            + "land nothing.")
    boolean list;
  }

  /** The names --scenario takes, for its help. */
  static final class ScenarioNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return Scenarios.names().iterator();
    }
  }

  @Option(names = "--count-arrivals",
      description = "Print how many arrivals the scenario (or --replay) has, one number on a line; land nothing.")
  boolean countArrivals;

  @Option(names = "--arrival", paramLabel = "<k>",
      description = "Only arrival k of the scenario (default: every arrival); with --from, the number the files "
          + "land as (default: the next one, unless identical files landed already).")
  Integer arrival;

  @Option(names = {"--feed", "--dataset"}, paramLabel = "<feed>",
      description = "With --from: the feed the files are lines of (default: the pipeline's first feed).")
  String dataset;

  @Option(names = "--prefix", paramLabel = "<prefix>", defaultValue = "",
      description = "Prefix inside the landing bucket, e.g. to keep test runs apart (default: none).")
  String prefix;

  @Option(names = "--to-dir", paramLabel = "<dir>",
      description = "Write the files under this directory on the local disk, in the same layout, instead of the "
          + "landing zone (default: the landing zone).")
  Path toDir;

  @ArgGroup(exclusive = false, heading = "Generator (--scenario generated: lines for the pipeline's feeds, from their "
      + "types):%n")
  Generator generator = new Generator();

  /** The generator's options; each starts at its value in {@link GeneratorSpec#defaults()}. */
  static final class Generator {
    private static final GeneratorSpec DEFAULTS = GeneratorSpec.defaults();

    @Option(names = "--seed", paramLabel = "<n>",
        description = "Random seed: the same seed gives byte-identical files (default: ${DEFAULT-VALUE}).")
    long seed = DEFAULTS.seed();

    @Option(names = "--events", paramLabel = "<n>",
        description = "Distinct records of each fact feed (default: ${DEFAULT-VALUE}).")
    int events = DEFAULTS.events();

    @Option(names = "--groups", paramLabel = "<n>",
        description = "Values of each grouping column (and any other string column) of a fact feed (default: "
            + "${DEFAULT-VALUE}).")
    int groups = DEFAULTS.groups();

    @Option(names = "--duplicate-rate", paramLabel = "<rate>",
        description = "Chance that a record is landed again, in its arrival or the next (default: ${DEFAULT-VALUE}).")
    double duplicateRate = DEFAULTS.duplicateRate();

    @Option(names = "--late-rate", paramLabel = "<rate>",
        description = "Chance that a record is 12 to 90 minutes behind its arrival's clock (default: "
            + "${DEFAULT-VALUE}).")
    double lateRate = DEFAULTS.lateRate();

    @Option(names = "--jumps", paramLabel = "<n>",
        description = "Far-future records, which move the watermarks on (default: ${DEFAULT-VALUE}).")
    int jumps = DEFAULTS.jumps();

    @Option(names = "--malformed-rate", paramLabel = "<rate>",
        description = "Chance that a malformed line follows a valid one (default: ${DEFAULT-VALUE}).")
    double malformedRate = DEFAULTS.malformedRate();

    @Option(names = "--arrivals", paramLabel = "<n>",
        description = "Arrivals the records and changes are spread over (default: ${DEFAULT-VALUE}).")
    int arrivals = DEFAULTS.arrivals();

    @Option(names = "--changes", paramLabel = "<n>",
        description = "Changes of each dimension feed (default: ${DEFAULT-VALUE}).")
    int changes = DEFAULTS.changes();

    @Option(names = "--keys", paramLabel = "<n>",
        description = "Keys each dimension's changes belong to (default: ${DEFAULT-VALUE}).")
    int keys = DEFAULTS.keys();

    @Option(names = "--start", paramLabel = "<time>",
        description = "Event time of the first arrival (default: ${DEFAULT-VALUE}).")
    Instant start = DEFAULTS.start();

    @Option(names = "--minutes-per-arrival", paramLabel = "<minutes>",
        description = "Event time each arrival covers (default: ${DEFAULT-VALUE}).")
    int minutesPerArrival = DEFAULTS.minutesPerArrival();

    GeneratorSpec spec() {
      return new GeneratorSpec(seed, events, groups, duplicateRate, lateRate, jumps, malformedRate, arrivals,
          changes, keys, start, minutesPerArrival);
    }
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    if (source.list) {
      out.println(list().toPrettyString());
      out.flush();
      return 0;
    }
    if (countArrivals) {
      out.println(countArrivals());
      out.flush();
      return 0;
    }
    TidemarkConfig config = Tidemark.root(spec).config();
    // a scenario name, a generator setting or a --from that does not do: said before any service starts
    if (source.replay == null && source.from == null) {
      scenario(null);
    }
    if (source.from != null) {
      LocalFiles.read(source.from, dataset());
    }
    if (toDir != null && !replaysS3()) {
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

  private boolean replaysS3() {
    return source.replay != null && LandedPrefix.isS3(source.replay);
  }

  /** The scenario or the --replay location; {@code storage} reads an S3 one. */
  private Scenario scenario(Storage storage) {
    Pipeline p = Tidemark.root(spec).config().pipeline();
    if (source.replay != null) {
      return LandedPrefix.read(source.replay, storage, p.feeds().stream().map(io.tidemark.pipeline.Feed::name).toList());
    }
    try {
      return Scenarios.named(source.scenario, p, generator::spec);
    } catch (LandingException e) {
      // an unknown name or a generator setting out of range: an option to fix, as picocli's own errors are
      throw bad(e.getMessage());
    }
  }

  /** A bad option value or combination: one line, exit 2, like the errors picocli finds itself. */
  private picocli.CommandLine.ParameterException bad(String message) {
    return new picocli.CommandLine.ParameterException(spec.commandLine(), message);
  }

  private int countArrivals() {
    if (source.from != null || arrival != null || toDir != null) {
      throw bad("--count-arrivals counts the arrivals of --scenario or --replay; it takes no --from, --arrival or "
          + "--to-dir");
    }
    if (!replaysS3()) {
      return scenario(null).arrivalCount();
    }
    try (Lakehouse lh = Lakehouse.open(Tidemark.root(spec).config(), "tidemark land")) {
      return scenario(lh.storage()).arrivalCount();
    }
  }

  /**
   * The scenarios with their arrivals and the generator's defaults by option name, for people and for what checks
   * its own copy of them against the jar (the Airflow DAG's trigger form).
   */
  private ObjectNode list() {
    ObjectNode root = JSON.createObjectNode();
    for (String name : Scenarios.names()) {
      Scenario s;
      try {
        s = Scenarios.named(name, Tidemark.root(spec).config().pipeline(), GeneratorSpec::defaults);
      } catch (LandingException e) {
        continue; // a seed scenario of feeds the pipeline does not declare
      }
      root.withArray("scenarios").addObject().put("name", name).put("arrivals", s.arrivalCount())
          .put("description", s.description());
    }
    ObjectNode generator = root.putObject("generator");
    for (OptionSpec o : spec.findOption("--seed").group().options()) {
      Object v = o.initialValue();
      generator.set(o.longestName().substring(2),
          v instanceof Number || v instanceof Boolean ? JSON.valueToTree(v) : TextNode.valueOf(String.valueOf(v)));
    }
    return root;
  }

  /** The arrivals to land; {@code storage} reads an S3 --replay location. */
  private List<Arrival> arrivals(Storage storage) {
    if (source.from != null) {
      return List.of();
    }
    Scenario scenario = scenario(storage);
    if (arrival == null) {
      return scenario.arrivals();
    }
    return List.of(ArrivalNumbers.pick(scenario, arrival,
        source.replay != null ? source.replay : "scenario " + scenario.name()));
  }

  private String dataset() {
    Pipeline p = Tidemark.root(spec).config().pipeline();
    try {
      return dataset == null ? p.feeds().get(0).name() : p.feed(dataset).name();
    } catch (IllegalArgumentException e) {
      throw bad("--feed: " + e.getMessage());
    }
  }

  private Arrival fromLocal(Lander lander) {
    String ds = dataset();
    List<LandingFile> files = LocalFiles.read(source.from, ds);
    return new Arrival(arrival != null ? arrival : ArrivalNumbers.forFiles(lander, ds, files), files);
  }

  private void writeLocal(List<Arrival> arrivals, PrintWriter out) {
    if (source.from != null) {
      throw bad("--to-dir writes scenarios; with --from the files are local already");
    }
    for (Path p : LocalLanding.write(toDir, prefix, arrivals)) {
      out.println("wrote " + p);
    }
    out.flush();
  }

}
