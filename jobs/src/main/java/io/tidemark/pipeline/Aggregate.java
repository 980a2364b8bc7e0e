package io.tidemark.pipeline;

import io.tidemark.config.TableName;
import io.tidemark.core.Aggregation;
import java.time.Duration;

/**
 * A windowed aggregate of a fact feed, as the pipeline runs it: its name (the name of its stream and checkpoint), the
 * table it appends its windows to, the watermark delay after which a window is final, and its rule
 * ({@link Aggregation}: window, grouping, measures).
 */
public record Aggregate(String name, String feed, TableName table, Duration watermark, Aggregation rule) {}
