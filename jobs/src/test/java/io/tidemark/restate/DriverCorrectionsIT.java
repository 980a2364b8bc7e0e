package io.tidemark.restate;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.testing.SeedTables;
import io.tidemark.lakehouse.tables.DriverReads;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The corrections' contract, on the driver ({@link DriverCorrections}); past its budget it hands over. */
class DriverCorrectionsIT extends CorrectionsContract {
  DriverCorrectionsIT() {
    super("corrections_driver");
  }

  @Override
  Corrections engine(PinnedTables at, SeedTables tables, Duration window) {
    return new DriverCorrections(at, tables, window, Restatement.DRIVER_ROWS);
  }

  @Test
  void moreRowsThanTheBudgetStopTheDriver() {
    LateDataPipeline late = LateDataPipeline.get(stack);
    assertThatThrownBy(() -> new DriverCorrections(late.at(stack), late.SeedTables.of(pipeline.config()),
        Duration.ofMinutes(5), 3).between(Marks.none(), late.now(stack)))
        .isInstanceOf(DriverReads.TooManyRows.class);
  }
}
