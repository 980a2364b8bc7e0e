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
    assertThat(java.awt.GraphicsEnvironment.isHeadless()).isTrue();
  }
}
