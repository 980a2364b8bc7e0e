package io.tidemark.restate;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.lakehouse.tables.DriverReads;
import org.junit.jupiter.api.Test;

/** The corrections' contract, on the driver ({@link DriverCorrections}); past its budget it hands over. */
class DriverCorrectionsIT extends CorrectionsContract {
  DriverCorrectionsIT() {
    super("corrections_driver");
  }

  @Override
  long driverRows() {
    return Restatement.DRIVER_ROWS;
  }

  @Override
  CorrectionEngines.Engine engine() {
    return CorrectionEngines.Engine.DRIVER;
  }

  @Test
  void moreRowsThanTheBudgetStopTheDriver() {
    LateDataPipeline late = LateDataPipeline.get(stack);
    assertThatThrownBy(() -> new DriverCorrections(late.at(stack), late.pipeline.config().pipeline(), 3)
        .between(Marks.none(), late.now(stack)))
        .isInstanceOf(DriverReads.TooManyRows.class);
  }
}
