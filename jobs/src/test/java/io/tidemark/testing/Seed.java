package io.tidemark.testing;

import io.tidemark.core.Aggregation;
import io.tidemark.core.Change;
import io.tidemark.core.Column;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Version;
import io.tidemark.land.SeedScenarios;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.PipelineFile;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * The seed pipeline (pipelines/seed.yml) as the tests name its parts: its feeds, columns and streams, and the rows of
 * its rules (a company change, a version, an event) built from plain values.
 */
public final class Seed {
  public static final Pipeline PIPELINE = PipelineFile.seed();
  public static final FactFeed EVENTS_FEED = (FactFeed) PIPELINE.feed(SeedScenarios.EVENTS);
  public static final DimensionFeed COMPANIES_FEED = (DimensionFeed) PIPELINE.feed(SeedScenarios.COMPANIES);
  public static final Aggregate COUNTS_AGGREGATE = EVENTS_FEED.aggregates().get(0);

  /** The events as the file declares them. */
  public static final FeedSchema EVENTS = EVENTS_FEED.schema();
  /** The company changes as the file declares them. */
  public static final FeedSchema CHANGES = COMPANIES_FEED.schema();
  /** The companies dimension. */
  public static final DimensionSchema COMPANIES = COMPANIES_FEED.dimension();
  /** The windowed counts. */
  public static final Aggregation COUNTS = COUNTS_AGGREGATE.rule();

  public static final Column EVENT_ID = EVENTS.columns().column("event_id");
  public static final Column COMPANY_ID = EVENTS.columns().column("company_id");
  public static final Column AMOUNT = EVENTS.columns().column("amount");
  public static final Column EVENT_TS = EVENTS.columns().column("event_ts");
  public static final Column NAME = CHANGES.columns().column("name");
  public static final Column TIER = CHANGES.columns().column("tier");
  public static final Column CHANGE_TS = CHANGES.columns().column("change_ts");
  public static final Column DELETED = CHANGES.columns().column("deleted");
  public static final Column W_START = COUNTS.windowStart();
  public static final Column N = COUNTS.schema().column("n");

  /** The streams' names. */
  public static final String RAW = EVENTS_FEED.raw().stream();
  public static final String DEDUP = EVENTS_FEED.dedup().stream();
  public static final String WINDOWED_COUNTS = COUNTS_AGGREGATE.name();
  public static final String RAW_COMPANIES = COMPANIES_FEED.raw().stream();
  public static final String SCD2 = COMPANIES_FEED.stream();

  private Seed() {}

  /** A change of a company's name and tier (and of its promoted attributes, {@code more}). */
  public static Change change(String company, String name, String tier, Instant at, Object... more) {
    List<Object> attributes = new java.util.ArrayList<>(Arrays.asList(name, tier));
    attributes.addAll(Arrays.asList(more));
    return Change.set(List.of(company), at, attributes);
  }

  /** A delete of a company ({@code attributes}: how many the dimension tracks, 2 without promoted ones). */
  public static Change delete(String company, Instant at) {
    return delete(company, at, 2);
  }

  public static Change delete(String company, Instant at, int attributes) {
    return Change.delete(List.of(company), at, attributes);
  }

  /** A version of a company (with its promoted attributes' values, {@code more}). */
  public static Version version(String company, String name, String tier, Instant from, Instant to, Boolean current,
                                Object... more) {
    List<Object> attributes = new java.util.ArrayList<>(Arrays.asList(name, tier));
    attributes.addAll(Arrays.asList(more));
    return new Version(List.of(company), attributes, from, to, current);
  }

  /** An event's values in the feed's order. */
  public static List<Object> event(int id, String company, Double amount, Instant at) {
    return Arrays.asList(id, company, amount, at);
  }
}
