package io.tidemark.fence;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The fence holds: no class outside {@code io.tidemark.fence} reaches the library internals it fences off, so that an
 * upgrade of Iceberg, Nessie or Spark has one package to look at (and its tests to run).
 */
class FencedInternalsTest {
  /** What only the fence may name: Iceberg's Nessie client and catalog, table operations, delete loading, Spark's
   * streaming internals and its rows' internal class. */
  private static final List<String> INTERNALS = List.of("org.apache.iceberg.nessie.", "TableOperations",
      "BaseTable", "BaseDeleteLoader", "GenericDeleteFilter", "org.apache.spark.sql.execution.streaming.",
      "GenericRowWithSchema", "FileStreamSourceLog", "CommitMultipleOperationsBuilder");

  @Test
  void noClassOutsideTheFenceReachesTheInternalsItFences() throws IOException {
    Path main = Path.of("src/main/java/io/tidemark");
    List<String> reaches = new ArrayList<>();
    try (Stream<Path> files = Files.walk(main)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java") && !p.startsWith(main.resolve("fence")))
          .toList()) {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          // configuration values name classes in strings (Spark's state store providers): only code counts
          String code = lines.get(i).replaceAll("\"([^\"\\\\]|\\\\.)*\"", "\"\"");
          for (String internal : INTERNALS) {
            if (code.contains(internal)) {
              reaches.add(main.relativize(f) + ":" + (i + 1) + ": " + internal);
            }
          }
        }
      }
    }
    assertThat(reaches).as("reaches into library internals outside io.tidemark.fence").isEmpty();
  }
}
