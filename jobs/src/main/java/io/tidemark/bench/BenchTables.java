package io.tidemark.bench;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.tables.TableDefinition;
import java.util.function.Function;
import org.apache.spark.sql.SparkSession;

/** Tables of the benchmarks: in the {@code bench} namespace, created empty for every measurement. */
final class BenchTables {
  static final String NS = "bench";

  private BenchTables() {}

  static void namespace(SparkSession spark) {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + NS);
  }

  /** A fresh, empty table of that kind (e.g. TableCatalog::events) named bench.name. */
  static TableName fresh(SparkSession spark, Function<TableName, TableDefinition> kind, String name) {
    TableDefinition d = kind.apply(new TableName(NS, name));
    spark.sql("DROP TABLE IF EXISTS " + d.name().sql());
    spark.sql(d.createSql());
    return d.name();
  }
}
