package io.tidemark.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tidemark.testing.SeedTables;
import io.tidemark.land.SeedScenarios;
import io.tidemark.testing.Cli;
import io.tidemark.testing.HeadlessChromium;
import io.tidemark.testing.Pipeline;
import io.tidemark.testing.StackTest;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/**
 * {@code tidemark report} over the seed's arrivals, a restatement and a compaction, opened from its file in a real
 * headless Chromium: every chart is an image the browser decoded and laid out, the numbers are the run's. The page
 * and a screenshot of it are kept in target/screenshots (next to the Airflow test's) for people to look at.
 */
class ReportIT extends StackTest {
  private static final Path SHOTS = Path.of(System.getProperty("tidemark.repo.dir", ".."), "target", "screenshots")
      .toAbsolutePath().normalize();

  @Test
  void theReportOpensInChromiumWithEveryChart() throws Exception {
    Pipeline p = new Pipeline(stack, "report", tmp.resolve("cp"));
    Map<String, String> env = p.env();
    SeedTables t = SeedTables.of(p.config());
    SeedScenarios.ALL.arrivals().forEach(p::arrive);
    Cli.Result restate = Cli.inProcess(env, "restate");
    assertThat(restate.exitCode()).as("%s", restate).isZero();
    Cli.Result compact = Cli.inProcess(env, "maintain", "compact", "--table", t.streamBatches().toString(),
        "--min-input-files", "2");
    assertThat(compact.exitCode()).as("%s", compact).isZero();

    Path page = SHOTS.resolve("pipeline-report.html");
    Cli.Result report = Cli.inProcess(env, "report", "--out", page.toString());
    assertThat(report.exitCode()).as("%s", report).isZero();
    assertThat(report.out()).isEqualTo("pipeline report: " + page + "\n");

    try (HeadlessChromium chromium = HeadlessChromium.start(1300, 1000)) {
      chromium.open(page.toUri().toString());
      JsonNode charts = chromium.evaluate("[...document.querySelectorAll('figure.chart img')].map(i => ({alt: i.alt,"
          + " complete: i.complete, width: i.naturalWidth, height: i.naturalHeight,"
          + " shown: i.getBoundingClientRect().width * i.getBoundingClientRect().height}))");
      assertThat(charts).as("time, late and recovered, state (2), watermarks (2), files, expectations per feed (2)")
          .hasSize(9);
      for (JsonNode c : charts) {
        assertThat(c.get("complete").asBoolean() && c.get("width").asInt() > 300 && c.get("height").asInt() > 200
            && c.get("shown").asDouble() > 0).as("chart %s decoded and shown: %s", c.get("alt"), c).isTrue();
      }
      String text = chromium.evaluate("document.body.innerText").asText();
      assertThat(text).contains("Time per stream per arrival", "Late rows dropped, and what the restatements "
          + "recovered", "State size over the runs", "Watermarks against the newest event times",
          "Data files per table, before and after maintenance")
          .contains("windowed-counts: 1 batch(es), 3 lines read, 0 row(s) into " + t.eventCounts()
              + ", 2 late partial count(s) dropped");
      JsonNode restatement = chromium.evaluate("[...document.querySelectorAll('h2')].find(h => h.innerText"
          + " === 'Restatements').nextElementSibling.rows[1].innerText.split('\\t')");
      assertThat(restatement.get(2).asText()).as("after arrival").isEqualTo("4");
      assertThat(restatement.get(3).asText()).as("windows recounted: c1 [00:00,00:05) and c3 [00:05,00:10)")
          .isEqualTo("2");
      assertThat(restatement.get(4).asText()).as("late events counted: 7, 101 and 106").isEqualTo("3");
      // the row of the table of files per table (the expectations' tables name tables too, with fewer columns)
      JsonNode batches = chromium.evaluate("[...document.querySelectorAll('table')].flatMap(x => [...x.rows])"
          + ".map(r => r.innerText.split('\\t')).find(r => r[0] === '" + t.streamBatches() + "' && r.length > 5)");
      assertThat(batches.get(3).asText()).as("the stream-batches table was compacted").isNotEqualTo("never");
      assertThat(Long.parseLong(batches.get(4).asText())).as("files before")
          .isGreaterThan(Long.parseLong(batches.get(5).asText()));

      Path png = SHOTS.resolve("pipeline-report.png");
      chromium.screenshot(png);
      BufferedImage shot = ImageIO.read(png.toFile());
      assertThat(shot.getHeight()).as("the whole page").isGreaterThan(2000);
    }
    assertThat(Files.size(page)).isPositive();
  }
}
