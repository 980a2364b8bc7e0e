package io.tidemark.lakehouse.tables;

import io.tidemark.config.TableName;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.TableSchemas;
import io.tidemark.core.TableShape;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.Declarations;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.SharedTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The definition of every table of a pipeline under the name it is given; the shapes come from the core's. */
public final class TableCatalog {
  private TableCatalog() {}

  /**
   * Every table of the pipeline, as its file declares the feeds (bootstrap makes them), each recording what the file
   * declares of it ({@link Declarations}).
   */
  public static List<TableDefinition> all(Pipeline p) {
    Map<TableName, Declarations.Declared> declared = Declarations.of(p);
    return tables(p).stream().map(d -> declared.containsKey(d.name())
        ? d.declaring(declared.get(d.name()).parts()) : d).toList();
  }

  private static List<TableDefinition> tables(Pipeline p) {
    List<TableDefinition> out = new ArrayList<>();
    for (FactFeed f : p.facts()) {
      out.add(raw(f.raw().table(), f.schema()));
      out.add(deduplicated(f.dedupTable(), f.schema(), f.dedupWatermark()));
      f.aggregates().forEach(a -> out.add(aggregate(a)));
    }
    for (DimensionFeed d : p.dimensions()) {
      out.add(raw(d.raw().table(), d.schema()));
      out.add(dimension(d.table(), d.dimension()));
      out.add(changeLog(d.changes(), d.dimension()));
    }
    SharedTables s = p.shared();
    out.add(rejected(s.rejected()));
    out.add(restatementLog(s.restatementLog()));
    out.add(restatementPlan(s.restatementPlan()));
    out.add(auditChecks(s.auditChecks()));
    out.add(streamBatches(s.streamBatches()));
    out.add(expectations(s.expectations()));
    return out;
  }

  private static TableDefinition of(TableName name, TableShape shape) {
    return new TableDefinition(name, shape);
  }

  // the tables of a feed as declared when a job runs (its promoted fields too)

  public static TableDefinition raw(TableName name, FeedSchema feed) {
    return of(name, TableSchemas.raw(feed));
  }

  public static TableDefinition deduplicated(TableName name, FeedSchema declared, java.time.Duration watermark) {
    return of(name, TableSchemas.deduplicated(declared, watermark));
  }

  public static TableDefinition aggregate(Aggregate a) {
    return aggregate(a.table(), a);
  }

  public static TableDefinition aggregate(TableName name, Aggregate a) {
    return of(name, TableSchemas.aggregate(a.feed(), a.rule()));
  }

  public static TableDefinition dimension(TableName name, DimensionSchema d) {
    return of(name, TableSchemas.dimension(d));
  }

  public static TableDefinition changeLog(TableName name, DimensionSchema d) {
    return of(name, TableSchemas.changeLog(d));
  }

  public static TableDefinition rejected(TableName name) {
    return of(name, TableSchemas.REJECTED);
  }

  public static TableDefinition restatementLog(TableName name) {
    return of(name, TableSchemas.RESTATEMENT_LOG);
  }

  public static TableDefinition restatementPlan(TableName name) {
    return of(name, TableSchemas.RESTATEMENT_PLAN);
  }

  public static TableDefinition auditChecks(TableName name) {
    return of(name, TableSchemas.AUDIT_CHECKS);
  }

  public static TableDefinition expectations(TableName name) {
    return of(name, TableSchemas.EXPECTATIONS);
  }

  public static TableDefinition streamBatches(TableName name) {
    return of(name, TableSchemas.STREAM_BATCHES);
  }
}
