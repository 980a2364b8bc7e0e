package io.tidemark.testing;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.lakehouse.tables.TableDefinition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.SparkSession;

/**
 * Tables of their own for one test (in a fresh namespace), and the helpers to compare what a stream wrote
 * with the oracle: rows rendered as "a|b|c" strings, sorted.
 */
public final class StreamFixture {
  private final SparkSession spark;
  private final String namespace;
  private boolean created;

  public StreamFixture(TestStack stack, String prefix) {
    this.spark = stack.spark();
    this.namespace = TestStack.unique(prefix);
  }

  /** The test's namespace, created on first use: a test that makes no table of its own commits nothing for it. */
  public String namespace() {
    if (!created) {
      spark.sql("CREATE NAMESPACE `" + namespace + "`");
      created = true;
    }
    return namespace;
  }

  /** Creates a table of the given kind (e.g. TableCatalog::eventCounts) named ns.name. */
  public TableName table(Function<TableName, TableDefinition> kind, String name) {
    TableDefinition d = kind.apply(new TableName(namespace(), name));
    spark.sql(d.createSql());
    return d.name();
  }

  /** A table of the seed's windowed counts. */
  public TableName counts(String name) {
    return table(n -> TableCatalog.aggregate(n, Seed.COUNTS_AGGREGATE), name);
  }

  /** A table of the seed's deduplicated events. */
  public TableName events(String name) {
    return table(n -> TableCatalog.deduplicated(n, Seed.EVENTS, Seed.EVENTS_FEED.dedupWatermark()), name);
  }

  /** A raw archive of the seed's events. */
  public TableName rawEvents(String name) {
    return table(n -> TableCatalog.raw(n, Seed.EVENTS), name);
  }

  /** "company|w_start|n" rows of a counts table, sorted. */
  public List<String> countRows(TableName t) {
    return strings("SELECT concat_ws('|', coalesce(company_id, 'NULL'), date_format(w_start, 'yyyy-MM-dd HH:mm:ss'), "
        + "CAST(n AS STRING)) FROM " + t.sql() + " ORDER BY 1");
  }

  /** "event_id|company_id|amount|event_ts" rows of an events table, sorted by id. */
  public List<String> eventRows(TableName t) {
    return strings("SELECT concat_ws('|', CAST(event_id AS STRING), coalesce(company_id, 'NULL'), "
        + "coalesce(CAST(amount AS STRING), 'NULL'), date_format(event_ts, 'yyyy-MM-dd HH:mm:ss')) FROM " + t.sql()
        + " ORDER BY event_id, 1");
  }

  /** "company|name|tier|valid_from|valid_to|is_current" rows of an SCD2 table, sorted. */
  public List<String> historyRows(TableName t) {
    return strings("SELECT concat_ws('|', company_id, coalesce(name, 'NULL'), coalesce(tier, 'NULL'), "
        + "date_format(valid_from, 'yyyy-MM-dd HH:mm:ss'), coalesce(date_format(valid_to, 'yyyy-MM-dd HH:mm:ss'), "
        + "'NULL'), CAST(is_current AS STRING)) AS r FROM " + t.sql() + " ORDER BY r");
  }

  public List<String> strings(String sql) {
    List<String> out = new ArrayList<>();
    spark.sql(sql).collectAsList().forEach(r -> out.add(r.getString(0)));
    return out;
  }

  public long count(TableName t) {
    return spark.table(t.sql()).count();
  }

  /** Local copies of every object under a prefix, for DuckDB (no httpfs here). */
  public static List<Path> download(Storage storage, String bucket, String prefix, Path dir) {
    List<Path> out = new ArrayList<>();
    for (Storage.ObjectInfo o : storage.list(bucket, prefix)) {
      Path target = dir.resolve(o.key());
      storage.download(bucket, o.key(), target);
      out.add(target);
    }
    return out;
  }
}
