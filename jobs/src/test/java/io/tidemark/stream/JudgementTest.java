package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.core.Ingest;
import io.tidemark.pipeline.Conditions;
import io.tidemark.pipeline.Expectation;
import io.tidemark.pipeline.ExpectationVersions;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.PipelineException;
import io.tidemark.pipeline.PipelineFile;
import io.tidemark.testing.LocalSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * How a stream judges rows by Spark: a fail rule names the reason before a drop rule, the file's order among each; a
 * null passes; the version of a row's arrival judges it; {@code current_timestamp()} is the landing time; and what
 * only the analyzer knows (an unknown function, a condition of another type) is one line before any stream starts.
 */
class JudgementTest {
  private final SparkSession spark = LocalSpark.get();

  private static Pipeline seed(String from, String to) throws Exception {
    return PipelineFile.parse(Files.readString(Path.of("../pipelines/seed.yml")).replace(from, to), "x.yml");
  }

  private Dataset<Row> rows(Object[]... rows) {
    StructType t = new StructType().add("event_id", DataTypes.IntegerType).add("company_id", DataTypes.StringType)
        .add("amount", DataTypes.DoubleType).add("event_ts", DataTypes.TimestampType)
        .add(Ingest.ARRIVAL.name(), DataTypes.IntegerType).add(Conditions.LANDED_AT, DataTypes.TimestampType);
    return spark.createDataFrame(java.util.Arrays.stream(rows).map(RowFactory::create).toList(), t);
  }

  private static Timestamp ts(String iso) {
    return Timestamp.from(java.time.Instant.parse(iso));
  }

  @Test
  void failBeforeDropNullPassesAndTheTimeNowIsTheLanding() throws Exception {
    FactFeed events = seed("action: warn", "action: warn").facts().get(0);
    List<Expectation> rules = new java.util.ArrayList<>(events.expectations());
    rules.add(Expectation.row("known_company", "company_id IS NOT NULL", Expectation.Action.FAIL));
    Judgement j = Judgement.of(ExpectationVersions.first(rules), events.schema(), events.identity());
    Timestamp landed = ts("2026-06-01T00:00:00Z");
    Dataset<Row> judged = rows(
        new Object[] {1, "c1", 1.0, ts("2026-01-01T00:00:00Z"), 1, landed},
        new Object[] {2, "c1", -1.0, ts("2026-01-01T00:00:00Z"), 1, landed},
        new Object[] {3, null, -1.0, ts("2026-01-01T00:00:00Z"), 1, landed},
        new Object[] {4, "c1", null, ts("2026-06-01T23:00:00Z"), 1, landed},
        new Object[] {5, "c1", 1.0, ts("2026-06-02T01:00:00Z"), 1, landed})
        .select(org.apache.spark.sql.functions.col("event_id"), j.reason().as("reason"), j.key().as("key"));
    List<String> out = judged.orderBy("event_id").as(Encoders.tuple(Encoders.INT(), Encoders.STRING(),
        Encoders.STRING())).collectAsList().stream().map(t -> t._1() + ":" + t._2() + ":" + t._3()).toList();
    assertThat(out).containsExactly("1:null:event_id=1", "2:expectation amount_not_negative (drop):event_id=2",
        "3:expectation known_company (fail):event_id=3", "4:null:event_id=4",
        "5:expectation event_time_not_future (drop):event_id=5");
    assertThat(j.kept(rows(new Object[] {2, "c1", -1.0, ts("2026-01-01T00:00:00Z"), 1, landed})).count()).isZero();
  }

  @Test
  void eachArrivalIsJudgedByItsVersion() throws Exception {
    FactFeed events = seed("action: warn", "action: warn").facts().get(0);
    List<Expectation> v1 = List.of(Expectation.row("positive", "amount > 0", Expectation.Action.DROP));
    List<Expectation> v2 = List.of(Expectation.row("positive", "amount > 10", Expectation.Action.DROP));
    ExpectationVersions versions = ExpectationVersions.first(v1).then(v2, 3);
    Judgement j = Judgement.of(versions, events.schema(), events.identity());
    Timestamp t = ts("2026-01-01T00:00:00Z");
    List<Integer> kept = j.kept(rows(new Object[] {1, "c", 5.0, t, 2, t}, new Object[] {2, "c", 5.0, t, 3, t},
        new Object[] {3, "c", 5.0, t, null, t})).select("event_id").as(Encoders.INT()).collectAsList();
    assertThat(kept).as("arrival 2 by v1 keeps 5; arrival 3 and a line outside the layout by v2 drop it")
        .containsExactly(1);
  }

  @Test
  void whatOnlyTheAnalyzerKnowsIsOneLineBeforeAnyStream() throws Exception {
    Pipeline unknown = seed("condition: amount >= 0", "condition: no_such_fn(amount) >= 0");
    assertThatThrownBy(() -> Judgement.check(spark, unknown)).isInstanceOf(PipelineException.class)
        .satisfies(e -> assertThat(e.getMessage()).startsWith("x.yml:21: facts[events].expectations["
            + "amount_not_negative].condition: not right over the columns of events").doesNotContain("\n"));
    Pipeline notBoolean = seed("condition: amount >= 0", "condition: upper(company_id)");
    assertThatThrownBy(() -> Judgement.check(spark, notBoolean)).isInstanceOf(PipelineException.class)
        .hasMessageContaining("'upper(company_id)' is string, not a boolean");
    Judgement.check(spark, seed("x", "x"));
  }
}
