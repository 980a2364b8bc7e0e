package io.tidemark.restate;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Change;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.CorrectionSet.ChangeFix;
import io.tidemark.core.CorrectionSet.RecordFix;
import io.tidemark.core.CorrectionSet.WindowFix;
import io.tidemark.testing.Seed;
import io.tidemark.testing.StackTest;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What every engine of the restatement's corrections ({@link Corrections}) must find, on the same tables pinned at one
 * commit ({@link LateDataPipeline}): every correction from no previous marks, only what came or became final since
 * given a previous run's marks, nothing without watermarks. Run against each engine by a subclass, through the one
 * place that chooses the engine ({@link CorrectionEngines}) with the subclass's budget: each case also holds the
 * choice (the driver within its budget, Spark past it).
 */
abstract class CorrectionsContract extends StackTest {
  CorrectionsContract(String prefix) {
    super(prefix);
  }

  /** The budget of rows the plan may read on the driver, given to the factory. */
  abstract long driverRows();

  /** The engine the factory must choose with that budget on this pipeline. */
  abstract CorrectionEngines.Engine engine();

  private final LateDataPipeline late = LateDataPipeline.get(stack);

  private CorrectionSet between(Marks before, Marks now) {
    CorrectionEngines.Worked worked = CorrectionEngines.between(spark, late.pipeline.config().pipeline(),
        late.at(stack), driverRows(), before, now);
    assertThat(worked.engine()).as("the engine chosen with a budget of %s rows", driverRows()).isEqualTo(engine());
    return worked.corrections();
  }

  private static Instant at(String time) {
    return Instant.parse("2026-01-01T" + time + "Z");
  }

  private static WindowFix window(String company, String start, Long old, long fresh) {
    return new WindowFix(Seed.WINDOWED_COUNTS, List.of(company), at(start), old == null ? null : List.of(old),
        List.of(fresh));
  }

  private static RecordFix event(int id, String company, double amount, String time, long oldRows) {
    return new RecordFix(Seed.EVENTS.name(), List.of(id), Seed.event(id, company, amount, at(time)), oldRows);
  }

  private static ChangeFix change(Change c) {
    return new ChangeFix(Seed.COMPANIES.name(), c);
  }

  private static final RecordFix REPEAT_AFTER_THE_DEDUP_FORGOT = event(101, "c1", 5.0, "00:00:10", 2);
  private static final RecordFix DROPPED_BY_THE_DEDUP = event(302, "c1", 3.0, "01:00:00", 0);

  @Test
  void everyCorrectionFromNoPreviousRun() {
    assertThat(between(Marks.none(), late.now(stack))).isEqualTo(new CorrectionSet(
        List.of(window("c1", "00:00:00", 4L, 6), window("c3", "00:05:00", null, 1),
            window("c1", "01:00:00", null, 1), window("c1", "02:45:00", null, 1)),
        List.of(REPEAT_AFTER_THE_DEDUP_FORGOT, DROPPED_BY_THE_DEDUP),
        List.of(change(Seed.change("c3", "Cog", "platinum", at("01:00:00"))))));
  }

  /**
   * Given the marks of a run after arrival 6: the rows the archives got since and the windows, ids and changes that
   * became final since; c1's window at 00:00 and c3's late change were there to correct before and are not again.
   */
  @Test
  void onlyWhatCameOrBecameFinalSinceThePreviousRun() {
    assertThat(between(late.afterLateChange, late.now(stack))).isEqualTo(new CorrectionSet(
        List.of(window("c3", "00:05:00", null, 1), window("c1", "01:00:00", null, 1),
            window("c1", "02:45:00", null, 1)),
        List.of(REPEAT_AFTER_THE_DEDUP_FORGOT, DROPPED_BY_THE_DEDUP), List.of()));
  }

  @Test
  void nothingIsFinalWithoutWatermarks() {
    Marks now = late.now(stack);
    assertThat(now.watermarks()).as("the streams have watermarks").isNotEmpty();
    assertThat(between(Marks.none(), new Marks(now.snapshots(), Map.of())).isEmpty()).isTrue();
  }
}
