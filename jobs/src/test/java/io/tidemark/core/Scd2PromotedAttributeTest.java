package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.Seed;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A field promoted into the companies feed ({@code tidemark evolve promote companies KEY}) is an attribute of the
 * dimension as the name is: a change of it alone makes a version, a repeat of it does nothing, and two changes at one
 * instant that differ only in it are settled by it.
 */
class Scd2PromotedAttributeTest {
  private static final Column REGION = Column.of("region", Type.STRING);
  private static final DimensionSchema PROMOTED = Seed.COMPANIES.with(REGION);

  private static Instant at(int minute) {
    return Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * minute);
  }

  private static Change set(String region, int minute) {
    return Seed.change("c1", "Acme", "gold", at(minute), region);
  }

  private static Version version(String region, int from, Integer to) {
    return Seed.version("c1", "Acme", "gold", at(from), to == null ? null : at(to), to == null, region);
  }

  @Test
  void theAttributesAndTheVersionListThePromotedFieldAfterTheStaticOnes() {
    assertThat(PROMOTED.attributes()).containsExactly(Seed.NAME, Seed.TIER, REGION);
    assertThat(PROMOTED.version().names()).containsExactly("company_id", "name", "tier", "region",
        "valid_from", "valid_to", "is_current");
    assertThat(PROMOTED.logged().names()).as("the change log keeps it after the feed's columns")
        .containsExactly("company_id", "name", "tier", "change_ts", "deleted", "region");
    assertThat(PROMOTED.feed()).isEqualTo(Seed.CHANGES.with(REGION));
    assertThat(PROMOTED.promotedBeyond(Seed.COMPANIES)).containsExactly(REGION);
  }

  @Test
  void aChangeOfThePromotedAttributeAloneMakesAVersionAndARepeatOfItDoesNothing() {
    List<Version> history = Scd2History.rebuild(List.of(set(null, 0), set("eu", 10), set("eu", 15),
        set("us", 20), set("us", 30)));
    assertThat(history).containsExactly(version(null, 0, 10), version("eu", 10, 20), version("us", 20, null));
  }

  @Test
  void aLateChangeOfItSplitsTheVersionItFallsInAndOneThatRepeatsItsNeighbourIsMergedAway() {
    assertThat(Scd2History.rebuild(List.of(set("eu", 0), set("eu", 20), set("us", 10))))
        .containsExactly(version("eu", 0, 10), version("us", 10, 20), version("eu", 20, null));
    assertThat(Scd2History.rebuild(List.of(set("eu", 0), set("us", 20), set("eu", 10))))
        .as("a late change equal to the state before it").containsExactly(version("eu", 0, 20),
            version("us", 20, null));
  }

  @Test
  void atOneInstantTheGreaterPromotedValueWinsANullLosesAndADeleteStillWins() {
    assertThat(Scd2History.rebuild(List.of(set("eu", 0), set(null, 0), set("us", 0), set("apac", 0))))
        .containsExactly(version("us", 0, null));
    assertThat(Scd2History.rebuild(List.of(set("eu", 0), Seed.delete("c1", at(0), 3)))).isEmpty();
    assertThat(new Change(List.of("c1"), at(0), true, List.of("Acme", "gold", "eu")).attributes())
        .as("a delete carries no attributes, promoted ones included").containsExactly(null, null, null);
  }

  @Test
  void theDifferenceRewritesTheVersionThePromotionSplitsAndAddsTheNewOne() {
    // the dimension before the promotion held one version; the log backfilled with the values holds two states
    List<Version> before = List.of(version(null, 0, null));
    List<Version> rebuilt = Scd2History.rebuild(List.of(set("eu", 0), set("us", 10)));
    assertThat(Scd2Difference.of(rebuilt, before)).containsExactly(
        new Scd2Difference.Step(version("eu", 0, 10), true), new Scd2Difference.Step(version("us", 10, null), true));
  }

  @Test
  void thePublishGatesRebuildFromPublishedVersionsKeepsThePromotedValues() {
    List<Change> log = List.of(set("eu", 0), set("us", 10));
    List<Version> published = Scd2History.rebuild(log);
    Map<List<Object>, Long> from = Scd2Since.earliest(List.of(set("apac", 20)));
    List<Change> changes = new java.util.ArrayList<>(Scd2Since.asChanges(published, from));
    changes.add(set("apac", 20));
    assertThat(Scd2History.rebuild(changes)).containsExactly(version("eu", 0, 10), version("us", 10, 20),
        version("apac", 20, null));
  }

  @Test
  void aRowOfTheFeedReadsThePromotedFieldsInOrder() {
    Map<String, Object> row = new java.util.HashMap<>(Map.of("company_id", "c1", "name", "Acme", "tier", "gold",
        "change_ts", at(0), "region", "eu"));
    Change c = PROMOTED.change(row::get);
    assertThat(PROMOTED.logRow(c)).containsExactly("c1", "Acme", "gold", at(0), false, "eu");
    assertThat(c.key()).containsExactly("c1");
    assertThat(c.deleted()).as("no marker: not a delete").isFalse();
    assertThat(c.attributes()).containsExactly("Acme", "gold", "eu");
    assertThat(c.sameState(set("eu", 5))).isTrue();
    assertThat(c.sameState(set("us", 5))).isFalse();
  }
}
