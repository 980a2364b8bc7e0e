package io.tidemark.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.audit.AuditCheck;
import java.util.List;
import org.junit.jupiter.api.Test;

class PublisherFailuresTest {
  private static AuditCheck check(String name, boolean passed) {
    return AuditCheck.of(name, "t", passed ? 0 : 1, "detail");
  }

  @Test
  void anIncompleteArrivalIsNamedBeforeWhatItExplains() {
    List<AuditCheck> checks = List.of(check(ArrivalChecks.WRITERS, true), check(ArrivalChecks.LINES, true),
        check(ArrivalChecks.SCD2, false), check(ArrivalChecks.WINDOWS, false),
        check(ArrivalChecks.SAME_ARRIVALS, false));
    assertThat(Publisher.failures(checks)).extracting(AuditCheck::name)
        .containsExactly(ArrivalChecks.SAME_ARRIVALS, ArrivalChecks.SCD2, ArrivalChecks.WINDOWS);
  }

  @Test
  void aHandMadeWriteIsNamedFirst() {
    List<AuditCheck> checks = List.of(check(ArrivalChecks.WRITERS, false), check(ArrivalChecks.LINES, false),
        check(ArrivalChecks.SCD2, true), check(ArrivalChecks.WINDOWS, true),
        check(ArrivalChecks.SAME_ARRIVALS, false));
    assertThat(Publisher.failures(checks)).extracting(AuditCheck::name)
        .containsExactly(ArrivalChecks.WRITERS, ArrivalChecks.SAME_ARRIVALS, ArrivalChecks.LINES);
  }

  @Test
  void otherwiseTheChecksKeepTheirOrder() {
    List<AuditCheck> checks = List.of(check(ArrivalChecks.WRITERS, true), check(ArrivalChecks.LINES, false),
        check(ArrivalChecks.SCD2, false), check(ArrivalChecks.WINDOWS, true),
        check(ArrivalChecks.SAME_ARRIVALS, true));
    assertThat(Publisher.failures(checks)).extracting(AuditCheck::name)
        .containsExactly(ArrivalChecks.LINES, ArrivalChecks.SCD2);
    assertThat(Publisher.failures(List.of(check(ArrivalChecks.LINES, true)))).isEmpty();
  }
}
