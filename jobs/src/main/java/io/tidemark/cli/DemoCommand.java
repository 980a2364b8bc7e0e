package io.tidemark.cli;

import io.tidemark.CrashPoints;
import io.tidemark.Timings;
import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.Feed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.core.Ingest;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.land.Arrival;
import io.tidemark.land.Lander;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.Scenarios;
import io.tidemark.land.SeedScenarios;
import io.tidemark.publish.Publisher;
import io.tidemark.report.LatenessReport;
import io.tidemark.restate.Restatement;
import io.tidemark.services.Services;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"The whole pipeline, step by step, on the configured (by default embedded) services.",
        "Services up, bootstrap, then for each seed arrival (or, for a pipeline file without the seed's feeds, each "
            + "arrival the generator makes for its feeds): land it and run every stream once (availableNow) on the "
            + "staging branch (TIDEMARK_STAGING_BRANCH), saying "
            + "what each run changed and that main is one step behind, then publish it to main (tidemark publish); "
            + "what landed and the tables; then the restatement of what the watermarks dropped, on a Nessie branch, "
            + "audited, merged into the staging branch, tagged and published; last, the pipeline report "
            + "(tidemark report).",
        "Safe to run again: every step is idempotent."})
final class DemoCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;


  @Override
  public Integer call() throws Exception {
    // the demo writes as the jobs do, on the staging branch, and publishes each arrival to main
    TidemarkConfig config = Tidemark.root(spec).config().writing();
    PrintWriter out = spec.commandLine().getOut();

    step(out, "1. services");
    Services services = new Services(config);
    services.ensureUp();
    ServicesCommand.print(out, services.status());

    try (Lakehouse lh = Lakehouse.open(config, "tidemark demo")) {
      step(out, "2. bootstrap: buckets, namespaces, tables");
      BootstrapCommand.print(out, Bootstrap.setUp(lh), config);

      Pipeline p = config.pipeline();
      step(out, "3. arrivals: land each, then one availableNow run of every stream (" + String.join(", ",
          p.streamNames()) + ") on branch " + config.stagingBranch() + ", then the publish: checks, and one merge "
          + "into " + config.publishedRef());
      Lander lander = new Lander(lh.storage(), config.landingBucket(), "");
      StreamNarrator narrator = new StreamNarrator(lh.spark(), config, out, Tidemark.root(spec).crashPoints());
      for (Arrival a : arrivals(p)) {
        out.println("-- arrival " + a.number());
        LandCommand.land(lander, List.of(a), out);
        narrator.run(a.number());
        publish(lh, out, Tidemark.root(spec).crashPoints());
      }

      step(out, "4. what is in the landing zone");
      for (Feed d : p.feeds()) {
        out.println(lander.sourceUri(d.name()));
        for (Storage.ObjectInfo o : lander.listed(d.name())) {
          out.printf("  %-48s %6d bytes%n", o.key(), o.size());
        }
      }

      step(out, "5. the tables on branch " + config.publishedRef());
      showTables(lh.spark(), config, out);
      showWindows(lh, out, "");

      step(out, "6. restatement: repair on a branch what the watermarks dropped, audit, publish, tag");
      Restatement.Result r = new Restatement(lh, Restatement.Options.defaults(config),
          Tidemark.root(spec).crashPoints()).run();
      RestateCommand.print(r, lh, out);
      publish(lh, out, Tidemark.root(spec).crashPoints());
      if (r.merged()) {
        showWindows(lh, out, " after the restatement");
      }
      RestateCommand.lateness(lh, config.home().resolve("reports/demo"), out);

      step(out, "where to look");
      out.println("Nessie UI (branches, commits, tables): " + lh.endpoints().nessieUi());
      out.println("  " + lh.endpoints().nessieUi() + "commits/" + config.publishedRef() + "   "
          + config.publishedRef() + " moves in whole arrivals, one publish commit each");
      out.println("  " + lh.endpoints().nessieUi() + "commits/" + config.stagingBranch() + "   every stream "
          + "commit, staged before it is checked");
      out.println("S3 endpoint: " + lh.endpoints().s3Endpoint()
          + (config.s3Endpoint().isEmpty() ? " (credentials in " + services.s3CredentialsFile() + ")" : ""));
      out.println("Restatements: branches restate-*, tags restated-* in the Nessie UI; "
          + "tidemark sql \"SELECT * FROM " + p.shared().restatementLog() + "\"");
      out.println("Every micro-batch of every stream run: ./tidemark sql \"SELECT * FROM "
          + p.shared().streamBatches() + "\"");
      out.println("SQL:  ./tidemark sql \"SHOW TABLES IN " + p.tables().get(1).namespace() + "\"");
      out.println("      ./tidemark log " + config.publishedRef() + "   vs   ./tidemark log " + config.stagingBranch());
      out.println("      ./tidemark sql \"SELECT count(*) FROM " + p.tables().get(1) + "@"
          + config.stagingBranch() + "\"   (what is staged, not yet published)");
      ReportCommand.write(lh, null, out);
      if (config.nessieUri().isEmpty() || config.s3Endpoint().isEmpty()) {
        out.println("The embedded services keep running for you to look; `./tidemark services down` stops them, "
            + "which docker compose needs first: it publishes the same Nessie port.");
      }
    }
    out.flush();
    return 0;
  }

  /**
   * The seed's arrivals, for a pipeline that declares the seed's feeds; else a small generated scenario of the
   * pipeline's own feeds: what {@code tidemark land --scenario generated --events 200 --groups 5 --late-rate 0.05
   * --malformed-rate 0.02 --arrivals 4 --changes 40 --keys 10} lands (the other settings the generator's defaults),
   * so that tidemark_arrivals triggered with those settings replays the demo.
   */
  private static List<Arrival> arrivals(Pipeline p) {
    try {
      return Scenarios.named(SeedScenarios.ALL.name(), p, GeneratorSpec::defaults).arrivals();
    } catch (io.tidemark.land.LandingException e) {
      GeneratorSpec d = GeneratorSpec.defaults();
      return new GeneratedScenario(new GeneratorSpec(d.seed(), 200, 5, d.duplicateRate(), 0.05, d.jumps(), 0.02, 4,
          40, 10, d.start(), d.minutesPerArrival()), p).arrivals();
    }
  }

  /** Every aggregate's windows as the published branch holds them, by time then group. */
  private static void showWindows(Lakehouse lh, PrintWriter out, String when) {
    TidemarkConfig config = lh.config();
    for (Aggregate a : config.pipeline().aggregates()) {
      List<String> order = new java.util.ArrayList<>(List.of(a.rule().windowStart().name()));
      a.rule().groupBy().forEach(g -> order.add(g.name()));
      out.println(a.name() + when + ":");
      new ResultPrinter(ResultPrinter.Format.table, 50).print(lh.spark().sql("SELECT * FROM "
          + a.table().sqlAt(config.publishedRef()) + " ORDER BY " + String.join(", ", order)), out, out);
    }
  }

  /**
   * The publish with what a reader sees on each side of it: before, the published branch one step behind the
   * staging branch; after, the same as the staging branch.
   */
  private static void publish(Lakehouse lh, PrintWriter out, CrashPoints crash) {
    TidemarkConfig config = lh.config();
    String main = config.publishedRef();
    String staging = config.stagingBranch();
    Seen onMain = Seen.at(lh.spark(), config, main);
    Seen staged = Seen.at(lh.spark(), config, staging);
    out.println(onMain.equals(staged)
        ? "   " + main + " shows what " + staging + " has: " + staged + "; nothing new to publish"
        : "   " + main + " is one step behind " + staging + ": " + main + " shows " + onMain + ", " + staging + " "
            + staged);
    Publisher.Result r = new Publisher(lh, crash, Timings.NONE).publish(false);
    out.println(r.summary());
    if (r.mergeHash() != null) {
      out.println("   " + main + " caught up: it shows " + Seen.at(lh.spark(), config, main) + ", as " + staging
          + " does");
    }
    out.flush();
  }

  /**
   * What a reader of a branch sees: the newest arrival in the raw archives, the first fact feed's deduplicated rows
   * and the rows its first aggregate counts (a restatement changes those without a new arrival).
   */
  private record Seen(int newestArrival, TableName events, long eventRows, TableName counts, long counted) {
    static Seen at(SparkSession spark, TidemarkConfig config, String ref) {
      try {
        return read(spark, config, ref);
      } catch (Exception e) {
        // AnalysisException is checked in Scala and undeclared to Java, hence the catch of Exception (rethrown as
        // it came); it says the tables are not on that branch yet: bootstrap publishes them at once only when
        // nothing else waits
        if (!(e instanceof org.apache.spark.sql.AnalysisException)) {
          throw e;
        }
        return new Seen(0, events(config), 0, counts(config).map(Aggregate::table).orElse(null), 0);
      }
    }

    /** The first fact feed's deduplicated table (or the first raw archive, for a pipeline of dimensions only). */
    private static TableName events(TidemarkConfig config) {
      Pipeline p = config.pipeline();
      return p.facts().isEmpty() ? p.rawTables().get(0) : p.facts().get(0).dedupTable();
    }

    private static java.util.Optional<Aggregate> counts(TidemarkConfig config) {
      return config.pipeline().aggregates().stream().findFirst();
    }

    private static Seen read(SparkSession spark, TidemarkConfig config, String ref) {
      String a = Ingest.ARRIVAL.name();
      Row arrival = spark.sql("SELECT max(" + a + ") FROM (" + String.join(" UNION ALL ", config.pipeline()
          .rawTables().stream().map(t -> "SELECT " + a + " FROM " + t.sqlAt(ref)).toList()) + ")").first();
      long rows = spark.table(events(config).sqlAt(ref)).count();
      java.util.Optional<Aggregate> counts = counts(config);
      long counted = 0;
      if (counts.isPresent()) {
        io.tidemark.core.Measure first = counts.get().rule().measures().get(0);
        counted = spark.sql("SELECT " + (first.function() == io.tidemark.core.Measure.Function.COUNT
            ? "coalesce(sum(" + first.name() + "), 0)" : "count(*)") + " FROM "
            + counts.get().table().sqlAt(ref)).first().getLong(0);
      }
      return new Seen(arrival.isNullAt(0) ? 0 : arrival.getInt(0), events(config), rows,
          counts.map(Aggregate::table).orElse(null), counted);
    }

    @Override
    public String toString() {
      return (newestArrival == 0 ? "no arrival" : "arrival " + newestArrival) + " (" + events + ": " + eventRows
          + " rows; " + counts + ": " + counted + " counted)";
    }
  }

  static void step(PrintWriter out, String title) {
    out.println();
    out.println("== " + title);
    out.flush();
  }

  static void showTables(SparkSession spark, TidemarkConfig config, PrintWriter out) {
    for (TableName t : config.pipeline().tables()) {
      long rows = spark.table(t.sqlAt(config.publishedRef())).count();
      out.printf("  %-28s %8d rows%n", t, rows);
    }
  }
}
