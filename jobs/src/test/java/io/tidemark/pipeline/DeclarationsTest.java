package io.tidemark.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.core.Column;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a changed file may change of a running pipeline: the seed's tables as they recorded their declaration, against
 * the seed's file edited one way at a time. A new optional column is promoted (tracked, in a dimension); a new
 * aggregate or feed needs nothing of the tables that exist; any other change to what a table or a checkpoint holds is
 * refused in one line naming the table, what changed and what to do instead.
 */
class DeclarationsTest {
  private static final String SEED = read();

  private static String read() {
    try {
      return Files.readString(Path.of("../pipelines/seed.yml"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Every table of the seed as bootstrap made it: what it recorded in its properties. */
  private static Map<TableName, Map<String, String>> recorded() {
    Map<TableName, Map<String, String>> out = new HashMap<>();
    Declarations.of(PipelineFile.seed()).forEach((t, d) -> out.put(t, Declarations.recorded(d.properties())));
    return out;
  }

  private static final String AMOUNT_RULE = """
            - name: amount_not_negative       # a refund is its own event, never a negative amount: leave it out
              condition: amount >= 0
              action: drop
      """;

  private static List<Declarations.Difference> compare(String from, String to) {
    assertThat(SEED).contains(from);
    return Declarations.compare(PipelineFile.parse(SEED.replace(from, to), "edited.yml"), recorded());
  }

  @Test
  void theFileAsTheTablesRecordedItChangesNothing() {
    assertThat(Declarations.compare(PipelineFile.seed(), recorded())).isEmpty();
    Map<TableName, Map<String, String>> none = new HashMap<>();
    assertThat(Declarations.compare(PipelineFile.seed(), none)).as("tables that recorded nothing take the file's")
        .isEmpty();
  }

  @Test
  void aNewOptionalColumnIsPromotedAndTrackedInADimension() {
    List<Declarations.Difference> facts = compare("      - {name: amount, type: double}\n",
        "      - {name: amount, type: double}\n      - {name: region, type: string}\n");
    assertThat(facts).singleElement().satisfies(d -> {
      assertThat(d.feed().name()).isEqualTo("events");
      assertThat(d.refusal()).isNull();
      assertThat(d.promoted()).extracting(Column::name).containsExactly("region");
    });
    List<Declarations.Difference> dims = compare("      - {name: tier, type: string}\n"
        + "      - {name: change_ts, type: timestamp, required: true}\n", "      - {name: tier, type: string}\n"
        + "      - {name: change_ts, type: timestamp, required: true}\n      - {name: size, type: int}\n");
    assertThat(dims).singleElement().satisfies(d -> {
      assertThat(d.refusal()).as("attributes listed: size is archived, not tracked").isNull();
      assertThat(d.promoted()).extracting(Column::name).containsExactly("size");
    });
    String both = SEED.replace("      - {name: tier, type: string}\n", "      - {name: tier, type: string}\n"
        + "      - {name: size, type: int}\n").replace("attributes: [name, tier]", "attributes: [name, tier, size]");
    assertThat(Declarations.compare(PipelineFile.parse(both, "edited.yml"), recorded()))
        .as("a column added and tracked at once").singleElement()
        .satisfies(d -> assertThat(d.promoted()).extracting(Column::name).containsExactly("size"));
  }

  @Test
  void aNewAggregateOrFeedTouchesNoTableThatExists() {
    assertThat(compare("dimensions:\n", """
              - name: amount-per-hour
                window: 1 hour
                watermark: 10 minutes
                group_by: [company_id]
                measures:
                  - {name: total, function: sum, column: amount}

        dimensions:
        """)).isEmpty();
    assertThat(compare("dimensions:\n", """
          - name: refunds
            columns:
              - {name: refund_id, type: long, required: true}
              - {name: refunded_at, type: timestamp, required: true}
            key: [refund_id]
            event_time: refunded_at
            dedup: {watermark: 1 hour}

        dimensions:
        """)).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      '        window: 5 minutes'                    | '        window: 10 minutes'                   | the aggregate windowed-counts (facts.event_counts): its window changed from 5 minutes to 10 minutes
      '        watermark: 10 minutes'                | '        watermark: 15 minutes'                | the aggregate windowed-counts (facts.event_counts): its watermark changed from 10 minutes to 15 minutes
      'watermark: 30 minutes}'                      | 'watermark: 1 hour}'                          | the dedup of events (facts.events): its watermark changed from 30 minutes to 1 hour
      '    key: [event_id]'                          | '    key: [event_id, company_id]'              | (raw.events): its key changed from event_id to event_id, company_id
      '          - {name: n, function: count}'        | '          - {name: rows, function: count}'     | the aggregate windowed-counts (facts.event_counts): its measures changed
      '        group_by: [company_id]'               | '        group_by: [company_id, event_id]'     | the aggregate windowed-counts (facts.event_counts): its group-by changed
      '{name: amount, type: double}'                | '{name: amount, type: long}'                  | (raw.events): the column amount was double and is long now
      '      - {name: amount, type: double}\\n'      | ''                                            | (raw.events): the column amount was dropped from the file
      '    attributes: [name, tier]'                 | '    attributes: [name]'                       | (dims.companies): its tracked attributes changed from name, tier to name
      '    delete: {column: deleted, value: true}'   | '    delete: {column: deleted, value: false}'  | the dimension companies (dims.companies): its delete changed from deleted = TRUE to deleted = FALSE
      """)
  void aChangeToWhatATableHoldsIsRefusedNamingTheTableAndWhatChanged(String from, String to, String says) {
    // a column dropped takes the expectation over it along (else the file is refused for the condition first)
    String text = from.contains("amount, type: double}\\n") ? SEED.replace(AMOUNT_RULE, "") : SEED;
    assertThat(text).contains(from.replace("\\n", "\n"));
    List<Declarations.Difference> d = Declarations.compare(PipelineFile.parse(text.replace(from.replace("\\n", "\n"),
        to), "edited.yml"), recorded());
    assertThat(d).singleElement().satisfies(x -> {
      assertThat(x.promoted()).isEmpty();
      assertThat(x.refusal()).contains(says).doesNotContain("\n")
          .contains("docs/pipeline.md#changing-a-running-pipeline");
    });
  }

  @Test
  void aNewRequiredColumnIsRefused() {
    List<Declarations.Difference> d = compare("      - {name: amount, type: double}\n",
        "      - {name: amount, type: double}\n      - {name: region, type: string, required: true}\n");
    assertThat(d).singleElement().satisfies(x -> assertThat(x.refusal())
        .contains("the new column region is required: the lines that landed before lack it (declare it optional)"));
  }

  @Test
  void aStreamSeesTheFileChangedBeforeBootstrap() {
    Map<String, String> now = Map.of("window", "10 minutes", "watermark", "10 minutes");
    assertThat(Declarations.stale(TableName.parse("facts.event_counts"), now,
        Map.of("window", "5 minutes", "watermark", "10 minutes")))
        .isEqualTo("the pipeline file changed facts.event_counts's window (5 minutes -> 10 minutes) since it was "
            + "made: run tidemark bootstrap, which promotes a new optional column and says what any other change "
            + "would take");
    assertThat(Declarations.stale(TableName.parse("facts.event_counts"), now, Map.of()))
        .as("a table made before declarations were kept").isNull();
  }
}
