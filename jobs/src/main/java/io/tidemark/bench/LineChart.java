package io.tidemark.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/** Small line charts drawn with Java2D into a PNG: one panel per measure, one line per series. */
public final class LineChart {
  private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
      new Color(0x9467bd)};
  private static final int PANEL_W = 520;
  private static final int PANEL_H = 320;

  /** A panel: its title, series name to values at x = xFrom, xFrom + 1, ..., and what x is. */
  public record Panel(String title, Map<String, List<Double>> series, String xLabel, int xFrom) {
    public Panel {
      series = new LinkedHashMap<>(series);
    }

    /** Values per run, x = 1..n. */
    public Panel(String title, Map<String, List<Double>> series) {
      this(title, series, "run", 1);
    }
  }

  private LineChart() {}

  public static void write(Path png, String title, List<Panel> panels) throws IOException {
    int width = PANEL_W * panels.size();
    int height = PANEL_H + 40;
    BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, width, height);
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.drawString(title, 12, 22);
    for (int i = 0; i < panels.size(); i++) {
      draw(g, panels.get(i), i * PANEL_W, 40);
    }
    g.dispose();
    ImageIO.write(img, "png", png.toFile());
  }

  private static void draw(Graphics2D g, Panel p, int x0, int y0) {
    int left = x0 + 70;
    int right = x0 + PANEL_W - 20;
    int top = y0 + 30;
    int bottom = y0 + PANEL_H - 60;
    double max = p.series().values().stream().flatMap(List::stream).mapToDouble(Double::doubleValue).max().orElse(1);
    max = max <= 0 ? 1 : max * 1.1;
    int n = p.series().values().stream().mapToInt(List::size).max().orElse(1);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
    g.setColor(Color.BLACK);
    g.drawString(p.title(), left, y0 + 16);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    g.setColor(Color.GRAY);
    g.drawLine(left, bottom, right, bottom);
    g.drawLine(left, top, left, bottom);
    for (int t = 0; t <= 4; t++) {
      int y = bottom - (bottom - top) * t / 4;
      g.drawString(String.format(Locale.ROOT, "%.3g", max * t / 4), x0 + 8, y + 4);
      g.drawLine(left - 3, y, left, y);
    }
    int step = Math.max(1, n / 10);
    for (int i = 1; i <= n; i++) {
      if (n <= 20 || (i - 1) % step == 0) {
        g.drawString(Integer.toString(p.xFrom() + i - 1), left + (right - left) * (i - 1) / Math.max(1, n - 1) - 4,
            bottom + 15);
      }
    }
    g.drawString(p.xLabel(), (left + right) / 2 - 8, bottom + 30);
    int c = 0;
    int legendY = bottom + 48;
    for (Map.Entry<String, List<Double>> e : p.series().entrySet()) {
      g.setColor(COLORS[c++ % COLORS.length]);
      g.setStroke(new BasicStroke(2f));
      List<Double> v = e.getValue();
      for (int i = 1; i < v.size(); i++) {
        g.drawLine(left + (right - left) * (i - 1) / Math.max(1, n - 1), bottom - (int) ((bottom - top) * v.get(i - 1) / max),
            left + (right - left) * i / Math.max(1, n - 1), bottom - (int) ((bottom - top) * v.get(i) / max));
      }
      g.fillRect(left + (c - 1) * 160, legendY - 8, 12, 8);
      g.drawString(e.getKey(), left + (c - 1) * 160 + 16, legendY);
    }
  }
}
