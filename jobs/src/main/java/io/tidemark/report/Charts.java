package io.tidemark.report;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries.XYSeriesRenderStyle;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Line charts as one PNG through XChart: a panel per measure side by side, a line per series, titled axes. */
public final class Charts {
  static {
    // a chart is a file; never reach for a display (a cluster node or CI machine has none)
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
  }

  private static final int PANEL_W = 560;
  private static final int PANEL_H = 360;
  private static final int TITLE_H = 36;

  /**
   * A panel: its title, the axis titles (with their units), and per series the values at x = xFrom, xFrom + 1,
   * ... . A share runs on a 0–100 % axis; a step function is drawn as steps, not as slopes between samples.
   */
  public record Panel(String title, String xAxis, String yAxis, int xFrom, Map<String, List<Double>> series,
                      boolean percent, boolean steps) {
    public Panel {
      series = new LinkedHashMap<>(series);
    }

    /** Values per run, x = 1..n, on an axis from zero. */
    public static Panel perRun(String title, String yAxis, Map<String, List<Double>> series) {
      return new Panel(title, "availableNow run", yAxis, 1, series, false, false);
    }

    /** A share in percent, drawn as steps over x = xFrom.. . */
    public static Panel shareSteps(String title, String xAxis, String yAxis, int xFrom,
                                   Map<String, List<Double>> series) {
      return new Panel(title, xAxis, yAxis, xFrom, series, true, true);
    }
  }

  /**
   * Bars: per category (e.g. an arrival) a bar for each series, side by side, on an axis from zero; a null value
   * draws no bar.
   */
  public record Bars(String title, String xAxis, String yAxis, List<String> categories,
                     Map<String, List<Double>> series) {
    public Bars {
      categories = List.copyOf(categories);
      series = new LinkedHashMap<>(series);
    }
  }

  private Charts() {}

  /** One panel as a PNG image, e.g. to embed in a page. */
  public static byte[] png(Panel p) throws IOException {
    return BitmapEncoder.getBitmapBytes(chart(p), BitmapEncoder.BitmapFormat.PNG);
  }

  /** Bars as a PNG image. */
  public static byte[] png(Bars b) throws IOException {
    return BitmapEncoder.getBitmapBytes(chart(b), BitmapEncoder.BitmapFormat.PNG);
  }

  static CategoryChart chart(Bars b) {
    // wider than a panel: the legend goes to the right, where the names of many series fit
    CategoryChart chart = new CategoryChartBuilder().width(PANEL_W * 3 / 2).height(PANEL_H).title(b.title())
        .xAxisTitle(b.xAxis()).yAxisTitle(b.yAxis()).build();
    var style = chart.getStyler();
    style.setLegendPosition(LegendPosition.OutsideE);
    if (b.categories().stream().anyMatch(c -> c.length() > 4)) {
      // long names (tables) would overlap side by side
      style.setXAxisLabelRotation(30);
    }
    style.setLegendVisible(b.series().size() > 1);
    style.setChartBackgroundColor(Color.WHITE);
    style.setPlotGridVerticalLinesVisible(false);
    style.setYAxisMin(0.0);
    style.setYAxisDecimalPattern("#,##0.##");
    boolean empty = b.series().values().stream().flatMap(List::stream).allMatch(v -> v == null || v == 0);
    if (empty) {
      // nothing above zero: an axis of its own, or XChart has no range to place ticks in
      style.setYAxisMax(1.0);
    }
    b.series().forEach((name, values) -> chart.addSeries(name, b.categories(), values));
    return chart;
  }

  /** Writes the panels side by side under {@code title} into {@code png}. */
  public static void write(Path png, String title, List<Panel> panels) throws IOException {
    List<BufferedImage> images = new ArrayList<>();
    for (Panel p : panels) {
      images.add(BitmapEncoder.getBufferedImage(chart(p)));
    }
    BufferedImage page = new BufferedImage(PANEL_W * panels.size(), PANEL_H + TITLE_H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = page.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, page.getWidth(), page.getHeight());
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    g.drawString(title, 12, 24);
    for (int i = 0; i < images.size(); i++) {
      g.drawImage(images.get(i), i * PANEL_W, TITLE_H, null);
    }
    g.dispose();
    ImageIO.write(page, "png", png.toFile());
  }

  static XYChart chart(Panel p) {
    XYChart chart = new XYChartBuilder().width(PANEL_W).height(PANEL_H).title(p.title())
        .xAxisTitle(p.xAxis()).yAxisTitle(p.yAxis()).build();
    var style = chart.getStyler();
    style.setLegendPosition(LegendPosition.InsideSE);
    // one series is named by the y axis already
    style.setLegendVisible(p.series().size() > 1);
    style.setChartBackgroundColor(Color.WHITE);
    style.setPlotGridVerticalLinesVisible(false);
    // counts, sizes and shares start at zero: an axis cut above zero exaggerates every change
    style.setYAxisMin(0.0);
    if (p.percent()) {
      style.setYAxisMax(100.0);
      style.setYAxisDecimalPattern("0");
    }
    // x is a whole number (a run, a minute)
    style.setXAxisDecimalPattern("0");
    int n = p.series().values().stream().mapToInt(List::size).max().orElse(0);
    if (n <= 1) {
      // a single point has no extent; give the axes one so that XChart can place ticks
      style.setXAxisMin((double) p.xFrom());
      style.setXAxisMax((double) p.xFrom() + 1);
    }
    for (Map.Entry<String, List<Double>> e : p.series().entrySet()) {
      List<Double> x = new ArrayList<>();
      for (int i = 0; i < e.getValue().size(); i++) {
        x.add((double) (p.xFrom() + i));
      }
      var s = chart.addSeries(e.getKey(), x, e.getValue());
      s.setXYSeriesRenderStyle(p.steps() ? XYSeriesRenderStyle.Step : XYSeriesRenderStyle.Line);
      s.setMarker(p.steps() || e.getValue().size() > 30 ? SeriesMarkers.NONE : SeriesMarkers.CIRCLE);
    }
    return chart;
  }
}
