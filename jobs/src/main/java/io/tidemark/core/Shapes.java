package io.tidemark.core;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The shapes of a pipeline's data as a job reads them at one commit (fields promoted into a feed included), by name:
 * its windowed aggregates, its fact feeds and its dimensions. What a restatement's plan rows are read back with.
 */
public record Shapes(Map<String, Aggregation> aggregations, Map<String, FeedSchema> facts,
                     Map<String, DimensionSchema> dimensions) {
  public Shapes {
    aggregations = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(aggregations));
    facts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(facts));
    dimensions = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(dimensions));
  }

  public Aggregation aggregation(String name) {
    return get(aggregations, name, "aggregate");
  }

  public FeedSchema fact(String name) {
    return get(facts, name, "fact feed");
  }

  public DimensionSchema dimension(String name) {
    return get(dimensions, name, "dimension");
  }

  private static <T> T get(Map<String, T> m, String name, String what) {
    T t = m.get(name);
    if (t == null) {
      throw new IllegalStateException("the pipeline has no " + what + " named " + name + " (a plan made with "
          + "another pipeline file?)");
    }
    return t;
  }
}
