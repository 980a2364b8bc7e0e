package io.tidemark.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Expectations as the pipeline file declares them: the seed's rules read as written, and a bad rule (a condition that
 * does not parse, names no column of its feed, is no boolean or not deterministic; an action that does not exist; a
 * drop over a whole arrival) is refused in one line naming the file, the line and the expectation, before anything
 * runs. Spark's parser only: no session.
 */
class ExpectationsFileTest {
  private static final String SEED = read();

  private static String read() {
    try {
      return Files.readString(Path.of("../pipelines/seed.yml"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static final String AMOUNT = """
            - name: amount_not_negative       # a refund is its own event, never a negative amount: leave it out
              condition: amount >= 0
              action: drop
      """;

  @Test
  void theSeedDeclaresWhatACarefulOwnerWould() {
    Pipeline p = PipelineFile.parse(SEED, "seed.yml");
    FactFeed events = p.facts().get(0);
    assertThat(events.expectations()).extracting(Expectation::definition).containsExactly(
        "amount_not_negative: condition amount >= 0 -> drop",
        "event_time_not_future: condition event_ts <= current_timestamp() + INTERVAL 1 DAY -> drop",
        "company_known: nulls nulls of company_id at most 5% -> warn",
        "few_dropped: dropped dropped at most 10% -> fail");
    assertThat(events.expectations().get(0).where()).startsWith("seed.yml:21: ");
    assertThat(Conditions.readsNow(events.expectations().get(1))).isTrue();
    assertThat(p.dimensions().get(0).expectations()).singleElement().satisfies(e -> {
      assertThat(e.action()).isEqualTo(Expectation.Action.FAIL);
      assertThat(e.reason()).isEqualTo("expectation tier_in_set (fail)");
      assertThat(e.quarantines()).isTrue();
    });
    assertThat(p.shared().expectations().toString()).isEqualTo("audit.expectations");
  }

  @Test
  void aGeneratorTakesASetsValuesFromItsRule() {
    Pipeline p = PipelineFile.parse(SEED, "seed.yml");
    assertThat(Expectation.sets(p.dimensions().get(0).expectations()))
        .containsExactly(java.util.Map.entry("tier", List.of("bronze", "silver", "gold", "platinum")));
    assertThat(Expectation.sets(p.facts().get(0).expectations())).isEmpty();
  }

  @Test
  void anActionLeftOutWarns() {
    Pipeline p = PipelineFile.parse(SEED.replace(AMOUNT, """
              - name: amount_not_negative
                condition: amount >= 0
        """), "x.yml");
    assertThat(p.facts().get(0).expectations().get(0).action()).isEqualTo(Expectation.Action.WARN);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      'condition: amount >= 0'        | 'condition: amount >= '                | 'x.yml:21: facts[events].expectations[amount_not_negative].condition: not Spark SQL'
      'condition: amount >= 0'        | 'condition: amout >= 0'                | '''amout'' is not a column of the feed (its columns: event_id, company_id, amount, event_ts)'
      'condition: amount >= 0'        | 'condition: amount + 1'                | 'is arithmetic, not a boolean'
      'condition: amount >= 0'        | 'condition: rand() > 0.5'              | 'rand() is not deterministic'
      'condition: amount >= 0'        | 'condition: amount IN (SELECT 1)'      | 'no subquery'
      'condition: amount >= 0'        | 'condition: 42'                        | 'a constant of type int, not a boolean'
      'action: drop'                  | 'action: quarantine'                   | 'x.yml:22: facts[events].expectations[amount_not_negative].action: ''quarantine'' is no action: warn, drop or fail'
      '        action: fail'          | '        action: drop'                 | 'drop drops rows; an arrival expectation (dropped) warns or fails'
      'name: company_known'           | 'name: amount_not_negative'            | 'two expectations named amount_not_negative in one feed'
      'name: company_known'           | 'name: Company-Known'                  | 'an expectation''s name'
      'nulls: {column: company_id, at_most: 5%}' | 'nulls: {column: company, at_most: 5%}' | 'company'
      'nulls: {column: company_id, at_most: 5%}' | 'nulls: {column: company_id, at_most: 150%}' | 'a share is from 0 to 1'
      'condition: amount >= 0'        | 'rows: {min: 1}'                       | 'needs only one of condition'
      """)
  void aBadRuleIsOneLineBeforeAnythingRuns(String from, String to, String says) {
    assertThat(SEED).contains(from);
    String text = from.startsWith("        action: fail") ? SEED.replace("dropped: {at_most: 10%}\n        action: fail",
        "dropped: {at_most: 10%}\n        action: drop") : SEED.replaceFirst(java.util.regex.Pattern.quote(from),
        java.util.regex.Matcher.quoteReplacement(to));
    if (to.startsWith("rows:")) {
      text = SEED.replace("condition: amount >= 0", "condition: amount >= 0\n        rows: {min: 1}");
    }
    String finalText = text;
    assertThatThrownBy(() -> PipelineFile.parse(finalText, "x.yml")).isInstanceOf(PipelineException.class)
        .satisfies(e -> assertThat(e.getMessage()).startsWith("x.yml:").contains(says).doesNotContain("\n"));
  }

  @Test
  void versionsJudgeFromTheirArrivalOnAndAnUnreachedVersionIsReplaced() {
    List<Expectation> v1 = List.of(Expectation.row("a", "x > 0", Expectation.Action.DROP));
    List<Expectation> v2 = List.of(Expectation.row("a", "x >= 0", Expectation.Action.DROP));
    List<Expectation> v3 = List.of(Expectation.row("a", "x >= 0", Expectation.Action.FAIL));
    ExpectationVersions first = ExpectationVersions.empty().then(v1, 1);
    assertThat(first.then(v1, 7)).as("the same rules: no new version").isSameAs(first);
    ExpectationVersions two = first.then(v2, 5);
    assertThat(two.of(4).number()).isEqualTo(1);
    assertThat(two.of(5).number()).isEqualTo(2);
    assertThat(two.of(99).rules()).isEqualTo(v2);
    assertThat(two.of(null).number()).as("a line outside the landing layout: the newest").isEqualTo(2);
    ExpectationVersions replaced = two.then(v3, 5);
    assertThat(replaced.versions()).as("v2 judged nothing yet: replaced").hasSize(2);
    assertThat(replaced.of(5).rules()).isEqualTo(v3);
    assertThat(ExpectationVersions.parse(replaced.json(), "t")).isEqualTo(replaced);
    assertThat(replaced.latest().label()).isEqualTo("v3 (from arrival 5)");
    assertThat(ExpectationVersions.empty().of(3)).isEqualTo(ExpectationVersions.NONE);
    assertThatThrownBy(() -> ExpectationVersions.parse("{not json", "raw.events"))
        .hasMessageContaining("raw.events: the property tidemark.expectations");
  }
}
