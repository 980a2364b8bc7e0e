package io.tidemark.fence;

import org.apache.iceberg.IcebergBuild;

/**
 * How a fence's test fails: loudly, naming the fenced class, what it relies on and the pinned versions, so that whoever
 * upgrades Iceberg, Nessie or Spark knows which reach into the library to rework.
 */
final class Fence {
  @FunctionalInterface
  interface Check {
    void run() throws Exception;
  }

  private Fence() {}

  static String versions() {
    return "Iceberg " + IcebergBuild.version() + ", Spark " + org.apache.spark.package$.MODULE$.SPARK_VERSION()
        + ", Nessie client " + org.projectnessie.api.NessieVersion.NESSIE_VERSION;
  }

  /** Runs the check; any failure becomes one naming {@code fenced} and what it relies on. */
  static void holds(Class<?> fenced, String reliesOn, Check check) {
    try {
      check.run();
    } catch (Throwable e) {
      throw new AssertionError("FENCE BROKEN: " + fenced.getName() + " relies on " + reliesOn + ", which the pinned "
          + "libraries (" + versions() + ") no longer do: rework " + fenced.getSimpleName() + " before upgrading ("
          + e + ")", e);
    }
  }
}
