package io.tidemark.services;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A server process that tidemark starts, detached from the caller, and recognizes later by its pid file.
 * The pid file holds the pid and the start instant, so that a recycled pid is never taken for ours and
 * {@code services down} stops exactly what {@code services up} started.
 */
public final class ManagedProcess {
  private static final Path SETSID = Path.of("/usr/bin/setsid");
  private static final Duration START_TOLERANCE = Duration.ofSeconds(10);

  private final String name;
  private final Path pidFile;
  private final Path logFile;

  public ManagedProcess(String name, Path runDir) {
    this.name = name;
    this.pidFile = runDir.resolve(name + ".pid");
    this.logFile = runDir.resolve(name + ".log");
  }

  public String name() {
    return name;
  }

  public Path logFile() {
    return logFile;
  }

  /** The live process recorded in the pid file, if it is still the one that was started. */
  public Optional<ProcessHandle> running() {
    if (!Files.isRegularFile(pidFile)) {
      return Optional.empty();
    }
    try {
      String[] parts = Files.readString(pidFile, StandardCharsets.UTF_8).trim().split("\\s+");
      long pid = Long.parseLong(parts[0]);
      Optional<Instant> recorded = parts.length > 1 ? Optional.of(Instant.parse(parts[1])) : Optional.empty();
      return ProcessHandle.of(pid)
          .filter(ProcessHandle::isAlive)
          .filter(h -> recorded.isEmpty()
              || h.info().startInstant().map(s -> sameStart(recorded.get(), s)).orElse(true));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether a process seen starting at {@code seen} is the one recorded as starting at {@code recorded}. Not to the
   * millisecond: a JVM works a start out from the boot time the kernel gives in whole seconds, and that moves
   * when the clock is corrected, so two JVMs can place one start a second or more apart; compared exactly, every
   * command after such a correction would take our own servers for someone else's. A recycled pid is another
   * process, started after ours ended: far from our start but for a server that died at once.
   */
  static boolean sameStart(Instant recorded, Instant seen) {
    return Duration.between(recorded, seen).abs().compareTo(START_TOLERANCE) <= 0;
  }

  /**
   * Starts the command in its own session (so that Ctrl-C on the caller does not stop it), with output to the
   * log file and {@code environment} added to the caller's, and records its pid.
   */
  public ProcessHandle start(List<String> command, Map<String, String> environment, Path workDir) throws IOException {
    Files.createDirectories(pidFile.getParent());
    List<String> full = new ArrayList<>();
    if (Files.isExecutable(SETSID)) {
      full.add(SETSID.toString());
    }
    full.addAll(command);
    ProcessBuilder builder = new ProcessBuilder(full);
    // secrets go here, not on the command line, where ps shows them to every user
    builder.environment().putAll(environment);
    Process p = builder
        .directory(workDir.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
        .start();
    ProcessHandle handle = p.toHandle();
    String started = handle.info().startInstant().map(Instant::toString).orElse("");
    Files.writeString(pidFile, handle.pid() + " " + started + "\n", StandardCharsets.UTF_8);
    return handle;
  }

  /** Stops the recorded process (TERM, then KILL after the timeout); true when one was running. */
  public boolean stop(Duration timeout) {
    Optional<ProcessHandle> handle = running();
    handle.ifPresent(h -> {
      h.destroy();
      try {
        h.onExit().get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        h.destroyForcibly();
        h.onExit().join();
      }
    });
    try {
      Files.deleteIfExists(pidFile);
    } catch (IOException e) {
      throw new ServiceException("cannot remove " + pidFile + ": " + e.getMessage(), e);
    }
    return handle.isPresent();
  }

  /** The last lines of the log, to explain a failed start. */
  public String logTail(int lines) {
    try {
      List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
      return String.join(" | ", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }
}
