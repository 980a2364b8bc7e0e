package io.tidemark.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A row's values by column name, whichever engine read it: Iceberg's readers on the driver, Spark, DuckDB. Its
 * adapter hands over every time as an {@link Instant}, so the rules never see an engine's own time types.
 */
@FunctionalInterface
public interface Fields {
  Object get(String column);

  default Object get(Column c) {
    return get(c.name());
  }

  /** The values of these columns, in their order (nulls kept). */
  default List<Object> values(List<Column> columns) {
    List<Object> out = new ArrayList<>(columns.size());
    columns.forEach(c -> out.add(get(c)));
    return out;
  }

  default String string(Column c) {
    return (String) get(c);
  }

  default Instant instant(Column c) {
    return (Instant) get(c);
  }

  default Long bigint(Column c) {
    return (Long) get(c);
  }

  default Integer integer(Column c) {
    return (Integer) get(c);
  }

  default Double number(Column c) {
    return (Double) get(c);
  }

  default Boolean bool(Column c) {
    return (Boolean) get(c);
  }
}
