package io.tidemark.driver;

/**
 * What the resident driver's JVM sets before it starts anything, where a JVM of one command relies on its exit to let
 * go of what its libraries keep:
 *
 * <ul>
 *   <li>The JDK's HTTP client (the Nessie clients' transport: each catalog a command's sessions make, each client of
 *       tidemark's and of the Nessie SQL extensions has one) keeps an idle connection pooled for 1,200 s by default,
 *       and that connection keeps its client reachable from the client's own selector thread: a client a command has
 *       closed kept its thread, its selector's two descriptors and its socket for 20 minutes, about 170 commands of a
 *       soak. Pooled for {@value #KEEP_ALIVE_SECONDS} s, the connection closes soon after the command's last request;
 *       the client is then garbage and its thread ends at its next collection.</li>
 *   <li>Spark's context cleaner removes what sessions and jobs leave (shuffles, broadcasts, each session's query
 *       execution listener bus) once the garbage collector has found them gone, and asks for a full collection every
 *       30 minutes by default; a driver that runs a command every few seconds asks every {@value #PERIODIC_GC}.</li>
 *   <li>Spark's status store (the UI's, kept with the UI off too) keeps the last 1,000 jobs, stages and SQL executions
 *       and 100,000 tasks: a heap that grew by about 0.4 MB a command for the first few hundred commands (the soak's
 *       slope), more than the compose driver's heap holds beside its work. The driver keeps
 *       {@value #RETAINED} of each and {@value #RETAINED_TASKS} tasks; nothing of tidemark reads them.</li>
 *   <li>Iceberg's vectorized Parquet reader makes a child of its static Arrow root allocator for every file it reads
 *       and never closes it (apache/iceberg#13937): about 140 allocators a soak's command, 0.1 MB of heap, kept for
 *       the JVM's life, in the driver and, on a cluster, in its long-lived executors. The driver's sessions read
 *       Iceberg's Parquet files row by row ({@value #VECTORIZATION} false; the session setting rules over the
 *       tables' property, and the executors read as the driver planned): the same rows, and a command's reads are
 *       small.</li>
 *   <li>Spark's shared cache of file listings keeps the statuses of every file a batch read (a stream's landed files,
 *       a read of a path) under a key of that read's own, which no later read looks up, until they fill
 *       250 MB: about 30 statuses a soak's command, a heap that grows for thousands of commands. The driver keeps
 *       none ({@value #FILE_STATUS_CACHE} 0): each read still lists its paths once, as it does in a JVM of its
 *       own.</li>
 * </ul>
 *
 * Each is kept when the JVM was given it ({@code -D}, or spark-submit's {@code --conf} for Spark's).
 */
public final class ResidentJvm {
  static final String KEEP_ALIVE = "jdk.httpclient.keepalive.timeout";
  static final String KEEP_ALIVE_SECONDS = "10";
  static final String PERIODIC_GC_SETTING = "spark.cleaner.periodicGC.interval";
  static final String PERIODIC_GC = "5min";
  static final String RETAINED = "100";
  static final String RETAINED_TASKS = "10000";
  static final String VECTORIZATION = "spark.sql.iceberg.vectorization.enabled";
  static final String FILE_STATUS_CACHE = "spark.sql.hive.filesourcePartitionFileCacheSize";

  private ResidentJvm() {}

  /** Sets them; before the first HTTP client and the SparkContext are made (the JDK and Spark read them once). */
  public static void prepare() {
    setIfAbsent(KEEP_ALIVE, KEEP_ALIVE_SECONDS);
    setIfAbsent(PERIODIC_GC_SETTING, PERIODIC_GC);
    for (String retained : new String[] {"spark.ui.retainedJobs", "spark.ui.retainedStages",
        "spark.sql.ui.retainedExecutions"}) {
      setIfAbsent(retained, RETAINED);
    }
    setIfAbsent("spark.ui.retainedTasks", RETAINED_TASKS);
    // a spark.* system property is in the SparkContext's conf, and so in every session's SQL settings
    setIfAbsent(VECTORIZATION, "false");
    setIfAbsent(FILE_STATUS_CACHE, "0");
  }

  /**
   * Which of the JIT's tiers the driver's JVM compiles with (TIDEMARK_JAVA_OPTS; the launcher's default is the first
   * alone): the driver's status says it, since it decides how a long run of big arrivals goes (docs/architecture.md).
   */
  static String jit() {
    var vm = java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
    if (!Boolean.parseBoolean(vm.getVMOption("TieredCompilation").getValue())) {
      return "the JIT's C2 alone";
    }
    String level = vm.getVMOption("TieredStopAtLevel").getValue();
    return switch (level) {
      case "1" -> "the JIT's first tier";
      case "4" -> "both JIT tiers";
      default -> "the JIT up to tier " + level;
    };
  }

  private static void setIfAbsent(String key, String value) {
    String given = System.getProperty(key);
    if (given == null || given.isBlank()) {
      System.setProperty(key, value);
    }
  }
}
