package io.tidemark.restate;

import io.tidemark.core.CorrectionSet;

/**
 * The plan's one job that runs on two engines: what a restatement corrects, worked out from the tables as the plan
 * pinned them, by the core's rules ({@link io.tidemark.core.CorrectionRules}). Only candidates are looked at: rows the
 * raw archives got since the last restatement ({@code before}'s snapshots) and rows of windows, ids and changes that
 * became final since then (their event time lies between {@code before}'s watermarks and {@code now}'s), so the work
 * follows the late data, not the size of the tables. {@link DriverCorrections} reads the few rows of a small plan on
 * the driver; {@link SparkCorrections} works in Spark when they are many. Both give the same {@link CorrectionSet}
 * (one contract test runs against both).
 */
interface Corrections {
  CorrectionSet between(Marks before, Marks now);
}
