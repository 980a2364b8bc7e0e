package io.tidemark.lakehouse.tables;

import io.tidemark.core.Column;
import io.tidemark.core.Feed;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Schema;
import io.tidemark.core.Type;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;

/**
 * A feed as the jobs run it: its static declaration plus the fields promoted into it, which are the columns of its
 * raw archive in the catalog ({@link FeedSchema#declaredBy}). Read once when a job starts, at the reference the job
 * reads (a stream's staging branch, the commit a restatement pinned, a tag): the catalog is the one record of what a
 * feed declares, versioned by Nessie with the data.
 */
public final class FeedDeclarations {
  private FeedDeclarations() {}

  /** The feed as the archive, as loaded, declares it. */
  public static FeedSchema of(Table archive, Feed feed) {
    return feed.schema().declaredBy(schema(archive.schema()));
  }

  /**
   * The companies as the SCD2 change log, as loaded, holds them: it gets a promoted field in the same commit as the
   * archive, so a job that reads the log and the dimension at one reference (a check, an audit, a publish) takes
   * the attributes from there.
   */
  public static FeedSchema ofChangeLog(Table log) {
    return Feed.COMPANIES.schema().declaredBy(schema(log.schema()));
  }

  /**
   * The feed as the archive named in Spark SQL (a table, or {@code t@ref}) declares it; the static declaration when
   * there is no archive yet (nothing can have been promoted into it).
   */
  public static FeedSchema read(SparkSession spark, String archive, Feed feed) {
    Table table;
    try {
      table = IcebergTables.load(spark, archive);
    } catch (IllegalStateException e) {
      if (spark.catalog().tableExists(archive)) {
        throw e;
      }
      return feed.schema();
    }
    return of(table, feed);
  }

  /** An Iceberg schema's top-level columns with the core's types (a column of another type has none to give). */
  public static Schema schema(org.apache.iceberg.Schema schema) {
    List<Column> out = new ArrayList<>();
    for (Types.NestedField f : schema.columns()) {
      Type t = type(f.type());
      if (t != null) {
        out.add(Column.of(f.name(), t));
      }
    }
    return new Schema(out);
  }

  /** The core's type of an Iceberg type, or null for one no feed field has. */
  public static Type type(org.apache.iceberg.types.Type t) {
    return switch (t.typeId()) {
      case INTEGER -> Type.INT;
      case LONG -> Type.BIGINT;
      case DOUBLE -> Type.DOUBLE;
      case STRING -> Type.STRING;
      case BOOLEAN -> Type.BOOLEAN;
      case TIMESTAMP -> Type.TIMESTAMP;
      default -> null;
    };
  }
}
