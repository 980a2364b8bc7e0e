package io.tidemark.restate;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.SeedTables;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.CorrectionSet.EventFix;
import io.tidemark.core.CorrectionSet.WindowFix;
import io.tidemark.testing.StackTest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What every engine of the restatement's corrections ({@link Corrections}) must find, on the same tables pinned at one
 * commit ({@link LateDataPipeline}): every correction from no previous marks, only what came or became final since
 * given a previous run's marks, nothing without watermarks. Run against each engine by a subclass.
 */
abstract class CorrectionsContract extends StackTest {
  private static final Duration WINDOW = Duration.ofMinutes(5);

  CorrectionsContract(String prefix) {
    super(prefix);
  }

  /** The engine under test, on the tables as the plan pinned them. */
  abstract Corrections engine(PinnedTables at, SeedTables tables, Duration window);

  private final LateDataPipeline late = LateDataPipeline.get(stack);

  private CorrectionSet between(Marks before, Marks now) {
    return engine(late.at(stack), late.SeedTables.of(pipeline.config()), WINDOW).between(before, now);
  }

  private static Instant at(String time) {
    return Instant.parse("2026-01-01T" + time + "Z");
  }

  private static final EventFix REPEAT_AFTER_THE_DEDUP_FORGOT = new EventFix(101, "c1", 5.0, at("00:00:10"), 2);
  private static final EventFix DROPPED_BY_THE_DEDUP = new EventFix(302, "c1", 3.0, at("01:00:00"), 0);

  @Test
  void everyCorrectionFromNoPreviousRun() {
    assertThat(between(Marks.none(), late.now(stack))).isEqualTo(new CorrectionSet(
        List.of(new WindowFix("c1", at("00:00:00"), 4L, 6), new WindowFix("c3", at("00:05:00"), null, 1),
            new WindowFix("c1", at("01:00:00"), null, 1), new WindowFix("c1", at("02:45:00"), null, 1)),
        List.of(REPEAT_AFTER_THE_DEDUP_FORGOT, DROPPED_BY_THE_DEDUP),
        List.of(CompanyChange.set("c3", "Cog", "platinum", at("01:00:00")))));
  }

  /**
   * Given the marks of a run after arrival 6: the rows the archives got since and the windows, ids and changes that
   * became final since; c1's window at 00:00 and c3's late change were there to correct before and are not again.
   */
  @Test
  void onlyWhatCameOrBecameFinalSinceThePreviousRun() {
    assertThat(between(late.afterLateChange, late.now(stack))).isEqualTo(new CorrectionSet(
        List.of(new WindowFix("c3", at("00:05:00"), null, 1), new WindowFix("c1", at("01:00:00"), null, 1),
            new WindowFix("c1", at("02:45:00"), null, 1)),
        List.of(REPEAT_AFTER_THE_DEDUP_FORGOT, DROPPED_BY_THE_DEDUP), List.of()));
  }

  @Test
  void nothingIsFinalWithoutWatermarks() {
    Marks now = late.now(stack);
    assertThat(between(Marks.none(), new Marks(now.rawEvents(), now.rawChanges(), Optional.empty(),
        Optional.empty(), Optional.empty())).isEmpty()).isTrue();
  }
}
