package io.tidemark.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries.XYSeriesRenderStyle;

class ChartsTest {
  @Test
  void sharesRunFromZeroToHundredAsSteps() {
    XYChart c = Charts.chart(Charts.Panel.shareSteps("on time", "watermark delay (minutes)", "events on time (%)", 0,
        Map.of("on time", List.of(40.0, 40.0, 75.0, 100.0))));
    assertThat(c.getStyler().getYAxisMin()).isEqualTo(0.0);
    assertThat(c.getStyler().getYAxisMax()).isEqualTo(100.0);
    assertThat(c.getSeriesMap().get("on time").getXYSeriesRenderStyle()).isEqualTo(XYSeriesRenderStyle.Step);
    assertThat(c.getXAxisTitle()).contains("minutes");
    assertThat(c.getYAxisTitle()).contains("%");
    assertThat(c.getSeriesMap().get("on time").getXData()).containsExactly(0.0, 1.0, 2.0, 3.0);
  }

  @Test
  void writesOnePngWithAPanelEach(@TempDir Path dir) throws Exception {
    Path png = dir.resolve("c.png");
    Charts.write(png, "two panels", List.of(
        Charts.Panel.perRun("state rows", "rows", Map.of("a", List.of(1.0, 3.0), "b", List.of(2.0, 2.0))),
        Charts.Panel.perRun("checkpoint size", "MB", Map.of("a", List.of(0.5)))));
    BufferedImage img = ImageIO.read(png.toFile());
    assertThat(img.getWidth()).isGreaterThan(2 * img.getHeight() - 300);
  }

  /**
   * Charts draw where no display answers, without the JVM being told it is headless: in a JVM of its own whose DISPLAY
   * names an X server that is not there (an ssh session's leftover, a CI runner's), where AWT would otherwise fail to
   * connect to it. (Asserting isHeadless() in this test JVM said only how the test ran.)
   */
  @Test
  void drawsWhereTheDisplayNamedIsNotThere(@TempDir Path dir) throws Exception {
    Path png = dir.resolve("headless.png");
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"), Draw.class.getName(),
        png.toString()).redirectErrorStream(true);
    pb.environment().put("DISPLAY", ":987");
    pb.environment().remove("JAVA_TOOL_OPTIONS");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("%s", out).isZero();
    assertThat(out).as("the JVM drew headless").contains("headless=true");
    assertThat(ImageIO.read(png.toFile()).getWidth()).isPositive();
  }

  /** A chart written by a JVM that was not told it is headless. */
  public static final class Draw {
    public static void main(String[] args) throws Exception {
      Charts.write(Path.of(args[0]), "one panel", List.of(Charts.Panel.perRun("state rows", "rows",
          Map.of("a", List.of(1.0, 3.0)))));
      System.out.println("headless=" + java.awt.GraphicsEnvironment.isHeadless());
    }
  }
}
