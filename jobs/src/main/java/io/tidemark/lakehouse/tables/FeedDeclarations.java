package io.tidemark.lakehouse.tables;

import io.tidemark.core.Column;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Schema;
import io.tidemark.core.Type;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;

/**
 * A feed as the jobs run it: its declaration in the pipeline file plus the fields promoted into it, which are the
 * columns of its raw archive in the catalog ({@link FeedSchema#declaredBy}; a dimension's promoted fields are tracked
 * attributes, {@link DimensionSchema#declaredBy}). Read once when a job starts, at the reference the job reads (a
 * stream's staging branch, the commit a restatement pinned, a tag): the catalog is the one record of what was
 * promoted, versioned by Nessie with the data.
 */
public final class FeedDeclarations {
  private FeedDeclarations() {}

  /** The feed as the archive, as loaded, declares it. */
  public static FeedSchema of(Table archive, FeedSchema declared) {
    return declared.declaredBy(schema(archive.schema()));
  }

  /** The dimension as its raw archive (or its change log, which gets a promoted field in the same commit) holds it. */
  public static DimensionSchema of(Table archiveOrLog, DimensionSchema declared) {
    return declared.declaredBy(schema(archiveOrLog.schema()));
  }

  /**
   * The feed as the archive named in Spark SQL (a table, or {@code t@ref}) declares it; the file's declaration when
   * there is no archive yet (nothing can have been promoted into it).
   */
  public static FeedSchema read(SparkSession spark, String archive, FeedSchema declared) {
    Table table = load(spark, archive);
    return table == null ? declared : of(table, declared);
  }

  /** The same for a dimension. */
  public static DimensionSchema read(SparkSession spark, String archive, DimensionSchema declared) {
    Table table = load(spark, archive);
    return table == null ? declared : of(table, declared);
  }

  /** The raw archive named in Spark SQL, as loaded now; null when there is none yet. */
  public static Table archive(SparkSession spark, String name) {
    return load(spark, name);
  }

  private static Table load(SparkSession spark, String name) {
    try {
      return IcebergTables.load(spark, name);
    } catch (IllegalStateException e) {
      if (spark.catalog().tableExists(name)) {
        throw e;
      }
      return null;
    }
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
      case DECIMAL -> Type.decimal(((Types.DecimalType) t).precision(), ((Types.DecimalType) t).scale());
      case STRING -> Type.STRING;
      case BOOLEAN -> Type.BOOLEAN;
      case DATE -> Type.DATE;
      case TIMESTAMP -> Type.TIMESTAMP;
      default -> null;
    };
  }
}
