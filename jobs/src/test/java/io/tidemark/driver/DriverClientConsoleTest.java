package io.tidemark.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The caller of the resident driver treats its own console as a JVM's command does: output that cannot be written (a
 * full disk, `> /dev/full`; a pipe closed by its reader) is dropped and the caller exits with the command's code, not
 * with what a lost driver gives. The driver here is one conversation of the real wire protocol on a loopback port.
 */
class DriverClientConsoleTest {
  private static final String SECRET = "a-secret-of-the-test";

  @TempDir
  Path home;

  /** A stream whose every write fails, as one on /dev/full does. */
  private static final class Full extends OutputStream {
    int writes;

    @Override
    public void write(int b) throws IOException {
      writes++;
      throw new IOException("No space left on device");
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      writes++;
      throw new IOException("No space left on device");
    }
  }

  /** Serves one command: two lines out, one on err, exit 1 (a failed audit's shape). */
  private static CompletableFuture<Wire.Request> serveOne(ServerSocketChannel server) {
    return CompletableFuture.supplyAsync(() -> {
      try (SocketChannel ch = server.accept()) {
        InputStream in = Wire.in(ch);
        OutputStream out = Wire.out(ch);
        byte[] nonce = Wire.nonce();
        byte[] version = Wire.VERSION.getBytes(StandardCharsets.UTF_8);
        byte[] hello = new byte[32 + version.length];
        System.arraycopy(nonce, 0, hello, 0, 32);
        System.arraycopy(version, 0, hello, 32, version.length);
        Wire.write(out, Wire.HELLO, hello);
        Wire.Frame auth = Wire.read(in);
        assertThat(Wire.proves(SECRET.getBytes(StandardCharsets.UTF_8), nonce, auth.payload())).isTrue();
        Wire.write(out, Wire.WELCOME, new byte[0]);
        Wire.Request request = Wire.decode(Wire.read(in).payload());
        Wire.write(out, Wire.OUT, "checks of run 42\n");
        Wire.write(out, Wire.ERR, "tidemark: audit failed: a window holds n=101\n");
        Wire.write(out, Wire.OUT, "1 of 5 checks failed\n");
        Wire.write(out, Wire.EXIT, Wire.exit(1));
        return request;
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
  }

  private int call(OutputStream out, OutputStream err) throws Exception {
    try (ServerSocketChannel server = ServerSocketChannel.open()
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
      CompletableFuture<Wire.Request> served = serveOne(server);
      int code = DriverClient.run(List.of("restate", "audit", "--run-id", "42"), Map.of(
          "TIDEMARK_HOME", home.toString(),
          DriverAddress.ADDRESS_ENV, "127.0.0.1:" + port,
          DriverAddress.SECRET_ENV, SECRET), home, out, err);
      assertThat(served.get(30, TimeUnit.SECONDS).args()).containsExactly("restate", "audit", "--run-id", "42");
      return code;
    }
  }

  @Test
  void aConsoleThatTakesEverythingGetsItAll() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    assertThat(call(out, err)).isEqualTo(1);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("checks of run 42\n1 of 5 checks failed\n");
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("tidemark: audit failed: a window holds n=101\n");
  }

  @Test
  void aFullStandardOutputKeepsTheCommandsExitCodeAndItsErrors() throws Exception {
    Full out = new Full();
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    assertThat(call(out, err)).as("the command's code, not a lost driver's 137").isEqualTo(1);
    assertThat(out.writes).as("tried once, then dropped as a PrintStream drops it").isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("tidemark: audit failed: a window holds n=101\n");
  }

  @Test
  void bothFullStillTheCommandsExitCode() throws Exception {
    assertThat(call(new Full(), new Full())).isEqualTo(1);
  }
}
