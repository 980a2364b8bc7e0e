package io.tidemark.services;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.Cli;
import io.tidemark.testing.OwnServicesTest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code services up|down|status} on a pair of its own, through the real jar: on {@link OwnServicesTest}, as it
 * starts and stops services on purpose, which the shared stack's must not be.
 */
class ServicesIT extends OwnServicesTest {
  private long pid(String name) throws IOException {
    return Long.parseLong(Files.readString(home.resolve("run/" + name + ".pid")).trim().split("\\s+")[0]);
  }

  @Test
  void upTwiceDownUpKeepsBranchesAndTables() throws Exception {
    Map<String, String> env = ownEnv();
    Cli.Result up = Cli.run(env, "services", "up");
    assertThat(up.exitCode()).as("%s", up).isZero();
    assertThat(up.out()).containsPattern("nessie\\s+running").containsPattern("s3\\s+running")
        .contains("S3 credentials (generated, owner-readable only): " + home.resolve("s3/s3proxy.properties"));
    assertThat(Files.getPosixFilePermissions(home.resolve("s3/s3proxy.properties")))
        .extracting(Object::toString).containsExactlyInAnyOrder("OWNER_READ", "OWNER_WRITE");
    long nessiePid = pid("nessie");
    long s3Pid = pid("s3");

    Cli.Result again = Cli.run(env, "services", "up");
    assertThat(again.exitCode()).isZero();
    assertThat(pid("nessie")).as("no second Nessie").isEqualTo(nessiePid);
    assertThat(pid("s3")).as("no second S3 server").isEqualTo(s3Pid);
    assertThat(ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("")
        .contains(home.resolve("nessie").toString())).count()).as("Nessie processes on this home").isEqualTo(1);

    assertThat(Cli.run(env, "bootstrap").exitCode()).isZero();
    Cli.Result branch = Cli.run(env, "sql", "CREATE BRANCH keepme IN nessie FROM main");
    assertThat(branch.exitCode()).as("%s", branch).isZero();

    Cli.Result down = Cli.run(env, "services", "down");
    assertThat(down.out()).isEqualTo("stopped: nessie, s3\n");
    assertThat(ProcessHandle.of(nessiePid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThat(ProcessHandle.of(s3Pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThat(stack.nessie().exists("main")).as("the other stack's services are not ours to stop").isTrue();
    Cli.Result status = Cli.run(env, "services", "status");
    assertThat(status.exitCode()).isEqualTo(3);
    assertThat(status.out()).containsPattern("nessie\\s+stopped").containsPattern("s3\\s+stopped");

    Cli.Result refs = Cli.run(env, "sql", "--format", "csv", "LIST REFERENCES IN nessie");
    assertThat(refs.exitCode()).as("services start on demand: %s", refs).isZero();
    assertThat(refs.out()).contains("Branch,keepme,").contains("Branch,main,");
    Cli.Result tables = Cli.run(env, "sql", "--format", "csv", "SHOW TABLES IN facts");
    assertThat(tables.out()).contains("facts,event_counts,false").contains("facts,events,false");
    assertThat(Cli.run(env, "services", "status").exitCode()).isZero();
  }

  @Test
  void busyPortIsOneLine() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Cli.Result r = Cli.run(ownEnv("TIDEMARK_S3_PORT", Integer.toString(taken.getLocalPort())), "services", "up");
      assertThat(r.exitCode()).isEqualTo(3);
      assertThat(r.errLines()).containsExactly("tidemark: s3: port " + taken.getLocalPort() + " on 127.0.0.1 is "
          + "busy (not a server tidemark started); stop what listens there or set TIDEMARK_S3_PORT");
    }
  }

  @Test
  void nessieNeedsJava21() {
    Path java17 = Path.of(System.getProperty("java.home"));
    Cli.Result r = Cli.run(ownEnv("TIDEMARK_NESSIE_JAVA", java17.toString()), "services", "up");
    assertThat(r.exitCode()).isEqualTo(3);
    assertThat(r.errLines()).containsExactly("tidemark: TIDEMARK_NESSIE_JAVA (--nessie-java): " + java17
        + " is not a Java 21+ runtime (it is Java " + Runtime.version().feature() + ")");
  }

  @Test
  void missingServerJarIsOneLine() {
    Cli.Result r = Cli.run(ownEnv(), List.of("-Dtidemark.services.dir=/nonexistent"), "services", "up");
    assertThat(r.exitCode()).isEqualTo(3);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).matches("tidemark: missing /nonexistent/(nessie-server|s3proxy)\\.jar; build it with: "
        + "mvn -q package -DskipTests\\n");
  }
}
