package io.tidemark.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.services.Endpoints;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * PyIceberg, pinned by {@code src/test/python/requirements-pyiceberg.txt}, in a virtual environment under
 * {@code target/} made by {@code infra/python-venv}; reused while the requirements file is unchanged (the first
 * install takes minutes). Runs {@code src/test/python/iceberg_rest_client.py} against the REST catalog,
 * with the S3 keys in its environment. Anything that does not work fails the test with pip's or Python's words:
 * an outside reader that cannot be installed is a failure, never a skip.
 */
public final class PyIceberg {
  private static final Path PYTHON_DIR = Path.of("src/test/python");
  private static final Path REQUIREMENTS = PYTHON_DIR.resolve("requirements-pyiceberg.txt");
  private static final Path SCRIPT = PYTHON_DIR.resolve("iceberg_rest_client.py");
  private static final Path VENV = Path.of("target/pyiceberg-venv");
  private static final long INSTALL_MINUTES = 30;
  private static final long RUN_MINUTES = 5;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path python;
  private final URI restUri;
  private final Endpoints endpoints;

  private PyIceberg(Path python, URI restUri, Endpoints endpoints) {
    this.python = python;
    this.restUri = restUri;
    this.endpoints = endpoints;
  }

  /** The environment, created or reused, talking to {@code restUri} with the S3 endpoint and keys of the stack. */
  public static synchronized PyIceberg install(URI restUri, Endpoints endpoints) {
    return new PyIceberg(virtualEnv(), restUri, endpoints);
  }

  /** What the script printed, or its one-line error. */
  public record Result(int exitCode, JsonNode json, String err) {
    public JsonNode ok() {
      if (exitCode != 0) {
        throw new AssertionError("PyIceberg failed (exit " + exitCode + "): " + err);
      }
      return json;
    }
  }

  /** Runs a command of the script on {@code ref} ({@code main}, a branch or a tag). */
  public Result run(String ref, String stdin, String... args) {
    List<String> cmd = new ArrayList<>(List.of(python.toString(), SCRIPT.toString(),
        "--uri", restUri + ref, "--s3-endpoint", endpoints.s3Endpoint().toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("AWS_ACCESS_KEY_ID", endpoints.s3AccessKey().reveal());
    pb.environment().put("AWS_SECRET_ACCESS_KEY", endpoints.s3SecretKey().reveal());
    Exec e = exec(pb, stdin, RUN_MINUTES);
    try {
      return new Result(e.code, e.code == 0 ? JSON.readTree(e.out) : null, e.err.strip());
    } catch (IOException ex) {
      throw new AssertionError("PyIceberg printed no JSON: " + e.out + e.err, ex);
    }
  }

  /** infra/python-venv makes it (or waits for ./run-tests, which starts making it while Maven builds). */
  private static Path virtualEnv() {
    Path repo = Path.of(System.getProperty("tidemark.repo.dir", ".."));
    long t0 = System.nanoTime();
    Exec e = exec(new ProcessBuilder(repo.resolve("infra/python-venv").toString(), VENV.toAbsolutePath().toString(),
        REQUIREMENTS.toAbsolutePath().toString()), null, INSTALL_MINUTES);
    require(e, "infra/python-venv " + VENV + " " + REQUIREMENTS);
    System.out.printf("[pyiceberg] virtual environment ready in %.0f s: %s%n", (System.nanoTime() - t0) / 1e9, VENV);
    return Path.of(e.out.strip()).resolve("bin/python").toAbsolutePath();
  }

  private record Exec(int code, String out, String err) {}

  private static void require(Exec e, String what) {
    if (e.code != 0) {
      String err = e.err.strip();
      throw new AssertionError(what + " failed (exit " + e.code + "): "
          + err.substring(Math.max(0, err.length() - 2000)));
    }
  }

  private static Exec exec(ProcessBuilder pb, String stdin, long minutes) {
    try {
      Path out = Files.createTempFile("pyiceberg", ".out");
      Path err = Files.createTempFile("pyiceberg", ".err");
      pb.redirectOutput(out.toFile()).redirectError(err.toFile());
      if (stdin == null) {
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      }
      Process p = pb.start();
      if (stdin != null) {
        try (var in = p.getOutputStream()) {
          in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
      }
      if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionError(String.join(" ", pb.command()) + " hung for " + minutes + " minutes");
      }
      Exec e = new Exec(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
      return e;
    } catch (IOException e) {
      throw new AssertionError("cannot run " + pb.command() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
