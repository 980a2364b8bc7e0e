package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.Cli;
import io.tidemark.testing.OwnServicesTest;
import io.tidemark.testing.TestStack;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * Wrong settings and unreachable services, through the real jar: one line naming what to fix, no hang. On
 * {@link OwnServicesTest}: each test gets a home of its own on ports where nothing listens, and a service started
 * there by mistake is stopped after it.
 */
class ConfigErrorsIT extends OwnServicesTest {
  @Test
  void malformedSettingExitsWith2AndOneLine() {
    Cli.Result r = Cli.run(ownEnv("TIDEMARK_S3_PATH_STYLE", "sometimes"), "sql", "SELECT 1");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).containsExactly(
        "tidemark: TIDEMARK_S3_PATH_STYLE (--s3-path-style): expected true or false, got 'sometimes'");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void badFlagValueExitsWith2() {
    Cli.Result r = Cli.run(ownEnv(), "bootstrap", "--landing-bucket", "Not_A_Bucket");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).containsExactly("tidemark: TIDEMARK_LANDING_BUCKET (--landing-bucket): expected an S3 "
        + "bucket name (3-63 of a-z 0-9 . -), got 'Not_A_Bucket'");
  }

  @Test
  void missingCredentialsForExternalS3() {
    Cli.Result r = Cli.run(ownEnv("TIDEMARK_S3_ENDPOINT", "http://127.0.0.1:9"), "bootstrap");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).containsExactly(
        "tidemark: TIDEMARK_S3_ACCESS_KEY: required when TIDEMARK_S3_ENDPOINT is set");
  }

  @Test
  void unreachableNessieIsNamedAndNothingStarts() {
    // two ports free at once: two calls of freePort() may get the same one, which the settings refuse as taken
    int[] ports = TestStack.freePorts(2);
    int closed = ports[0];
    Cli.Result r = Cli.run(ownEnv("TIDEMARK_NESSIE_URI", "http://127.0.0.1:" + closed + "/api/v2",
        "TIDEMARK_S3_ENDPOINT", "http://127.0.0.1:" + ports[1], "TIDEMARK_S3_ACCESS_KEY", "a",
        "TIDEMARK_S3_SECRET_KEY", "b"), "sql", "SELECT 1");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(3);
    assertThat(r.errLines()).containsExactly("tidemark: cannot reach Nessie at http://127.0.0.1:" + closed
        + "/api/v2/config (connection refused); check TIDEMARK_NESSIE_URI (--nessie-uri)");
    assertThat(home.resolve("run")).as("no embedded service was started").doesNotExist();
  }

  @Test
  void unreachableS3IsNamed() {
    int closed = TestStack.freePort();
    Cli.Result r = Cli.run(ownEnv("TIDEMARK_NESSIE_URI", stack.endpoints().nessieApi().toString(),
        "TIDEMARK_S3_ENDPOINT", "http://127.0.0.1:" + closed, "TIDEMARK_S3_ACCESS_KEY", "a",
        "TIDEMARK_S3_SECRET_KEY", "b"), "land", "--scenario", "seed");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(3);
    assertThat(r.errLines()).containsExactly("tidemark: cannot reach S3 at http://127.0.0.1:" + closed
        + " (connection refused); check TIDEMARK_S3_ENDPOINT (--s3-endpoint)");
  }

  @Test
  void wrongS3CredentialsAreOneLine() {
    Cli.Result r = Cli.run(ownEnv("TIDEMARK_NESSIE_URI", stack.endpoints().nessieApi().toString(),
        "TIDEMARK_S3_ENDPOINT", stack.endpoints().s3Endpoint().toString(), "TIDEMARK_S3_ACCESS_KEY", "nobody",
        "TIDEMARK_S3_SECRET_KEY", "wrong-secret"), "land", "--scenario", "seed");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(1);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("cannot look up bucket").contains(stack.endpoints().s3Endpoint().toString())
        .doesNotContain("wrong-secret");
    assertThat(Files.exists(home.resolve("run"))).isFalse();
  }
}
