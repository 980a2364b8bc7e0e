package io.tidemark.report;

import io.tidemark.config.TableName;
import io.tidemark.core.ExpectationColumns;
import io.tidemark.pipeline.Feed;
import io.tidemark.pipeline.Pipeline;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The report's section on expectations, from the record ({@link ExpectationColumns}): per feed a chart of each
 * expectation's violations per arrival, and a table of which version of each rule judged which arrivals, its totals
 * and the latest sample keys. A rule changed between arrivals shows as two versions, each with its own arrivals.
 */
final class ExpectationsSection {
  private ExpectationsSection() {}

  /** One expectation of one version, over the arrivals it judged. */
  record Judged(String feed, String expectation, int version, String kind, String action, String rule,
                TreeMap<Integer, long[]> perArrival, List<String> latestSamples) {}

  /** The section as HTML; empty when the record is missing or holds nothing. */
  static String html(SparkSession spark, Pipeline p) throws IOException {
    TableName record = p.shared().expectations();
    if (!spark.catalog().tableExists(record.toString())) {
      return "";
    }
    List<Row> rows = spark.sql(ExpectationColumns.perArrival(record.sql())).collectAsList();
    return html(p, judged(rows));
  }

  static List<Judged> judged(List<Row> rows) {
    Map<String, Judged> out = new LinkedHashMap<>();
    for (Row r : rows) {
      // feed, arrival, expectation, version, kind, action, rule, rows, violations, sample keys
      String k = r.getString(0) + "/" + r.getString(2) + "/" + r.getInt(3);
      Judged j = out.computeIfAbsent(k, x -> new Judged(r.getString(0), r.getString(2), r.getInt(3), r.getString(4),
          r.getString(5), r.getString(6), new TreeMap<>(), new ArrayList<>()));
      j.perArrival().put(r.getInt(1), new long[] {r.getLong(7), r.getLong(8)});
      List<String> samples = r.isNullAt(9) ? List.of() : r.getList(9);
      if (!samples.isEmpty()) {
        j.latestSamples().clear();
        j.latestSamples().addAll(samples);
      }
    }
    return new ArrayList<>(out.values());
  }

  static String html(Pipeline p, List<Judged> judged) throws IOException {
    if (judged.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder("<h2>Expectations</h2>\n<p>Per feed, each expectation's violations per "
        + "arrival (rows that failed a condition, rows with a null, valid lines dropped; for a row count, the rows "
        + "kept), as the raw archive counted them in <code>" + esc(p.shared().expectations().toString())
        + "</code>; a rule changed by bootstrap judges from the next arrival, and shows as its own version.</p>\n");
    for (Feed f : p.feeds()) {
      List<Judged> ofFeed = judged.stream().filter(j -> j.feed().equals(f.name())).toList();
      if (ofFeed.isEmpty()) {
        continue;
      }
      TreeSet<Integer> arrivals = new TreeSet<>();
      ofFeed.forEach(j -> arrivals.addAll(j.perArrival().keySet()));
      Map<String, List<Double>> series = new LinkedHashMap<>();
      for (Judged j : ofFeed) {
        List<Double> values = new ArrayList<>();
        for (int a : arrivals) {
          long[] n = j.perArrival().get(a);
          values.add(n == null ? null : (double) (j.kind().equals("rows") ? n[0] : n[1]));
        }
        series.put(j.expectation() + " v" + j.version() + " (" + j.action() + ")", values);
      }
      byte[] png = Charts.png(new Charts.Bars(f.name() + ": violations per arrival", "arrival", "rows",
          arrivals.stream().map(String::valueOf).toList(), series));
      sb.append("<figure class=\"chart\"><img alt=\"").append(esc(f.name())).append(" expectations\" src=\"data:image/"
          + "png;base64,").append(Base64.getEncoder().encodeToString(png)).append("\"></figure>\n");
    }
    sb.append("<table><tr><th>feed</th><th>expectation</th><th>version</th><th>rule</th><th>action</th>"
        + "<th>arrivals judged</th><th>rows</th><th>violations</th><th>latest sample keys</th></tr>\n");
    for (Judged j : judged) {
      long rows = j.perArrival().values().stream().mapToLong(n -> n[0]).sum();
      long violations = j.perArrival().values().stream().mapToLong(n -> n[1]).sum();
      sb.append("<tr><td>").append(esc(j.feed())).append("</td><td>").append(esc(j.expectation())).append("</td><td>v")
          .append(j.version()).append("</td><td>").append(esc(j.rule())).append("</td><td>").append(esc(j.action()))
          .append("</td><td>").append(io.tidemark.stream.BatchArrivals.describe(new TreeSet<>(j.perArrival().keySet())))
          .append("</td><td>").append(rows).append("</td><td>").append(j.kind().equals("rows") ? "" : violations)
          .append("</td><td>").append(esc(String.join("; ", j.latestSamples()))).append("</td></tr>\n");
    }
    return sb.append("</table>\n").toString();
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
