package io.tidemark.stream;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lag;
import static org.apache.spark.sql.functions.lead;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.when;

import io.tidemark.lakehouse.Schemas;
import io.tidemark.lakehouse.SparkOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;

/**
 * The SCD2 history of companies, rebuilt from their changes. Each change sets a company's state at its
 * change time: (name, tier), or deleted. The history is the sequence of states over time with repeats merged:
 * a version starts where the state changes and ends where the next one starts (or a delete closes it); the
 * last one is open. Because it is rebuilt from all changes of a company, a change that arrives out of order
 * lands where it belongs, and a version it makes identical to its neighbour disappears.
 */
public final class Scd2History {
  private Scd2History() {}

  /**
   * Changes as the history reads them: {@code deleted} never null, a delete carries no attributes. Two different
   * changes of one company at the same instant are settled the same way everywhere: a delete wins, else the
   * greater (name, tier).
   */
  public static Dataset<Row> normalize(Dataset<Row> changes) {
    Column deleted = coalesce(col("deleted"), lit(false));
    return changes.select(col("company_id"),
        when(deleted, lit(null).cast("string")).otherwise(col("name")).as("name"),
        when(deleted, lit(null).cast("string")).otherwise(col("tier")).as("tier"),
        col("change_ts"), deleted.as("deleted"));
  }

  /** Versions ({@link io.tidemark.lakehouse.Schemas#COMPANY_VERSION}), from changes of any companies. */
  public static Dataset<Row> rebuild(Dataset<Row> changes) {
    WindowSpec sameInstant = Window.partitionBy("company_id", "change_ts")
        .orderBy(col("deleted").desc(), col("name").desc_nulls_last(), col("tier").desc_nulls_last());
    WindowSpec byTime = Window.partitionBy("company_id").orderBy("change_ts");
    Dataset<Row> settled = normalize(changes)
        .withColumn("rank", row_number().over(sameInstant))
        .where(col("rank").equalTo(1))
        .drop("rank");
    Column sameAsBefore = col("deleted").eqNullSafe(lag("deleted", 1).over(byTime))
        .and(col("name").eqNullSafe(lag("name", 1).over(byTime)))
        .and(col("tier").eqNullSafe(lag("tier", 1).over(byTime)));
    return settled
        .withColumn("repeat", sameAsBefore)
        .where(col("repeat").unary_$bang())
        .withColumn("valid_to", lead("change_ts", 1).over(byTime))
        .where(col("deleted").unary_$bang())
        .select(col("company_id"), col("name"), col("tier"), col("change_ts").as("valid_from"), col("valid_to"),
            col("valid_to").isNull().as("is_current"));
  }

  /**
   * {@link #rebuild} on the driver, for the few changes of a small batch's companies, where a Spark plan's fixed
   * cost would be most of the time. It keeps the same rules to the letter (Scd2IT checks that both agree): the
   * same-instant winner is a delete, else the greater name, then tier, nulls least and strings in Spark's order
   * (UTF-8 bytes, which is code point order, not Java's UTF-16 order).
   *
   * @param changes rows of {@link Schemas#COMPANY_CHANGE}
   * @return rows of {@link Schemas#COMPANY_VERSION}
   */
  public static List<Row> rebuildRows(List<Row> changes) {
    Map<Object, List<Change>> byCompany = new LinkedHashMap<>();
    for (Row r : changes) {
      Change c = Change.of(r);
      byCompany.computeIfAbsent(c.companyId(), k -> new ArrayList<>()).add(c);
    }
    List<Row> versions = new ArrayList<>();
    for (List<Change> company : byCompany.values()) {
      company.sort(Comparator.comparing(Change::changeTs, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(WINNER_FIRST));
      List<Change> kept = new ArrayList<>();
      Change previous = null;
      for (Change c : company) {
        boolean sameInstantLoser = previous != null && Objects.equals(previous.changeTs(), c.changeTs());
        if (sameInstantLoser) {
          continue;
        }
        boolean repeat = previous != null && previous.sameState(c);
        previous = c;
        if (!repeat) {
          kept.add(c);
        }
      }
      for (int i = 0; i < kept.size(); i++) {
        Change c = kept.get(i);
        Object validTo = i + 1 < kept.size() ? kept.get(i + 1).changeTs() : null;
        if (!c.deleted()) {
          versions.add(new GenericRowWithSchema(new Object[] {c.companyId(), c.name(), c.tier(), c.changeTs(), validTo,
              validTo == null}, Schemas.COMPANY_VERSION));
        }
      }
    }
    return versions;
  }

  /** A normalized change: {@code deleted} never null, a delete without attributes. */
  private record Change(Object companyId, String name, String tier, Comparable<Object> changeTs, boolean deleted) {
    private static final int COMPANY = Schemas.COMPANY_CHANGE.fieldIndex("company_id");
    private static final int NAME = Schemas.COMPANY_CHANGE.fieldIndex("name");
    private static final int TIER = Schemas.COMPANY_CHANGE.fieldIndex("tier");
    private static final int CHANGE_TS = Schemas.COMPANY_CHANGE.fieldIndex("change_ts");
    private static final int DELETED = Schemas.COMPANY_CHANGE.fieldIndex("deleted");

    /** A row of {@link Schemas#COMPANY_CHANGE} (its fields in that order, with or without a schema). */
    @SuppressWarnings("unchecked")
    static Change of(Row r) {
      boolean deleted = !r.isNullAt(DELETED) && r.getBoolean(DELETED);
      return new Change(r.get(COMPANY), deleted ? null : r.getString(NAME), deleted ? null : r.getString(TIER),
          (Comparable<Object>) r.get(CHANGE_TS), deleted);
    }

    boolean sameState(Change o) {
      return deleted == o.deleted && Objects.equals(name, o.name) && Objects.equals(tier, o.tier);
    }
  }

  /** Of two changes at one instant, the one {@link #rebuild} keeps comes first. */
  private static final Comparator<Change> WINNER_FIRST = Comparator.comparing(Change::deleted).reversed()
      .thenComparing(Change::name, Comparator.nullsLast(SparkOrder.STRINGS.reversed()))
      .thenComparing(Change::tier, Comparator.nullsLast(SparkOrder.STRINGS.reversed()));
}
