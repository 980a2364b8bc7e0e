package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.Cli;
import io.tidemark.testing.StackTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The spark-submit jar on what a cluster provides: Spark, Hadoop with s3a, and the few libraries Spark itself
 * ships that the jar leaves out (Jackson, slf4j, snappy, commons-codec, commons-lang3). Nothing else.
 */
class ClusterJarIT extends StackTest {
  @Test
  void carriesWhatTheJobsNeedAndNotSpark() throws Exception {
    Set<String> top = new TreeSet<>();
    Set<String> classes = new TreeSet<>();
    try (JarFile jar = new JarFile(System.getProperty("tidemark.spark.jar"))) {
      jar.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class")).forEach(n -> {
        classes.add(n);
        top.add(n.contains("/") ? n.substring(0, n.lastIndexOf('/')) : n);
      });
    }
    assertThat(classes).as("Spark and Hadoop come from the cluster").doesNotContain(
        "org/apache/spark/SparkContext.class", "org/apache/spark/sql/SparkSession.class",
        "org/apache/hadoop/fs/FileSystem.class", "org/apache/hadoop/fs/s3a/S3AFileSystem.class",
        "com/fasterxml/jackson/databind/ObjectMapper.class");
    assertThat(top).contains("io/tidemark/cli", "org/apache/iceberg/spark", "org/apache/iceberg/aws/s3",
        "org/apache/iceberg/nessie", "org/projectnessie/spark/extensions", "io/minio",
        "io/tidemark/shaded/okhttp3", "io/tidemark/shaded/com/google/common/collect", "org/duckdb", "picocli");
    assertThat(top).as("relocated, not to clash with the cluster's Guava and OkHttp")
        .noneMatch(p -> p.startsWith("okhttp3") || p.startsWith("com/google/common"));
  }

  @Test
  void runsOnASparkClasspath() throws Exception {
    List<String> cp = new ArrayList<>();
    cp.add(System.getProperty("tidemark.spark.jar"));
    cp.addAll(List.of(Files.readString(Path.of(System.getProperty("tidemark.cluster.classpath"))).strip()
        .split(java.io.File.pathSeparator)));
    try (Stream<Path> lib = Files.list(Path.of(System.getProperty("tidemark.lib.dir")))) {
      lib.map(Path::toString)
          .filter(p -> p.matches(".*/(jackson-[a-z-]+|slf4j-api|snappy-java|commons-codec|commons-lang3)-[0-9.]+\\.jar"))
          .forEach(cp::add);
    }
    String ns = fx.namespace();
    List<String> jvm = List.of("-cp", String.join(java.io.File.pathSeparator, cp));
    // on the branch the suite's session reads (sql works on the published branch, which the suite does not write)
    Map<String, String> onStaging = new java.util.HashMap<>(stack.env());
    onStaging.put("TIDEMARK_NESSIE_REF", stack.config().nessieRef());
    Cli.Result ctas = Cli.runMain(onStaging, jvm, "sql", "--format", "csv",
        "CREATE TABLE " + ns + ".t USING iceberg AS SELECT 41 + 1 AS answer");
    assertThat(ctas.exitCode()).as("%s", ctas).isZero();
    assertThat(spark.table(ns + ".t").first().getInt(0)).isEqualTo(42);

    Cli.Result land = Cli.runMain(stack.env(), jvm, "land", "--scenario", "seed-counts", "--prefix", ns);
    assertThat(land.exitCode()).as("%s", land).isZero();
    assertThat(stack.lakehouse().storage().list(stack.config().landingBucket(), ns + "/")).hasSize(3);
  }
}
