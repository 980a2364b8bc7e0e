package io.tidemark.driver;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The resident driver's protocol, over a Unix socket or TCP: frames of a type byte, a length and a payload.
 *
 * <pre>
 * driver: HELLO (version, nonce)
 * caller: AUTH (HMAC-SHA256 of the nonce with the key)
 * driver: WELCOME, or DENIED (not authenticated)
 * caller: REQUEST (pid, working directory, arguments, environment), or PING
 * driver: OUT / ERR (the command's output as it comes), then EXIT (its code); or REFUSED (reason: the caller runs
 *         the command in a JVM of its own), STATUS (to a ping)
 * caller: CANCEL at any time (a signal, Airflow's timeout); closing the connection cancels too
 * </pre>
 *
 * The key never crosses the wire: the caller proves it knows it by the HMAC of a nonce the driver chose.
 */
final class Wire {
  static final String VERSION = "tidemark-driver/1";
  static final byte HELLO = 'H';
  static final byte AUTH = 'A';
  static final byte REQUEST = 'Q';
  static final byte PING = 'P';
  static final byte CANCEL = 'C';
  static final byte OUT = 'O';
  static final byte ERR = 'E';
  static final byte EXIT = 'X';
  static final byte REFUSED = 'R';
  static final byte DENIED = 'D';
  static final byte WELCOME = 'W';
  static final byte STATUS = 'S';
  /** More than any request or output chunk: a longer frame is not ours. */
  static final int MAX_FRAME = 16 << 20;
  private static final SecureRandom RANDOM = new SecureRandom();

  private Wire() {}

  record Frame(byte type, byte[] payload) {
    String text() {
      return new String(payload, StandardCharsets.UTF_8);
    }
  }

  static Frame read(InputStream in) throws IOException {
    DataInputStream d = new DataInputStream(in);
    int type = d.read();
    if (type < 0) {
      throw new EOFException("the connection closed");
    }
    int length = d.readInt();
    if (length < 0 || length > MAX_FRAME) {
      throw new IOException("not a tidemark driver frame (length " + length + ")");
    }
    byte[] payload = new byte[length];
    d.readFully(payload);
    return new Frame((byte) type, payload);
  }

  static void write(OutputStream out, byte type, byte[] payload) throws IOException {
    synchronized (out) {
      byte[] head = ByteBuffer.allocate(5).put(type).putInt(payload.length).array();
      out.write(head);
      out.write(payload);
      out.flush();
    }
  }

  static void write(OutputStream out, byte type, String text) throws IOException {
    write(out, type, text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Closes the channel in {@code ms} unless the returned guard is closed first: a peer that does not answer in time
   * gets a closed connection, never a caller waiting forever.
   */
  static AutoCloseable deadline(SocketChannel ch, long ms, String name) {
    Thread guard = new Thread(() -> {
      try {
        Thread.sleep(ms);
        ch.close();
      } catch (InterruptedException | IOException e) {
        // answered in time
      }
    }, name);
    guard.setDaemon(true);
    guard.start();
    return guard::interrupt;
  }

  static byte[] nonce() {
    byte[] n = new byte[32];
    RANDOM.nextBytes(n);
    return n;
  }

  static byte[] proof(byte[] key, byte[] nonce) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      mac.update(VERSION.getBytes(StandardCharsets.UTF_8));
      return mac.doFinal(nonce);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
    }
  }

  static boolean proves(byte[] key, byte[] nonce, byte[] proof) {
    return MessageDigest.isEqual(proof(key, nonce), proof);
  }

  static byte[] exit(int code) {
    return ByteBuffer.allocate(4).putInt(code).array();
  }

  static int exitCode(byte[] payload) {
    return ByteBuffer.wrap(payload).getInt();
  }

  /** A request as bytes: strings as UTF-8 with their length. */
  static byte[] encode(Request r) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream d = new DataOutputStream(bytes)) {
      d.writeLong(r.pid());
      string(d, r.workDir());
      d.writeInt(r.args().size());
      for (String a : r.args()) {
        string(d, a);
      }
      d.writeInt(r.env().size());
      for (var e : r.env().entrySet()) {
        string(d, e.getKey());
        string(d, e.getValue());
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return bytes.toByteArray();
  }

  static Request decode(byte[] payload) throws IOException {
    DataInputStream d = new DataInputStream(new java.io.ByteArrayInputStream(payload));
    long pid = d.readLong();
    String workDir = string(d);
    int n = count(d);
    java.util.List<String> args = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      args.add(string(d));
    }
    int m = count(d);
    java.util.Map<String, String> env = new java.util.LinkedHashMap<>();
    for (int i = 0; i < m; i++) {
      env.put(string(d), string(d));
    }
    return new Request(pid, workDir, args, env);
  }

  private static int count(DataInputStream d) throws IOException {
    int n = d.readInt();
    if (n < 0 || n > 100_000) {
      throw new IOException("not a tidemark driver request (" + n + " items)");
    }
    return n;
  }

  private static void string(DataOutputStream d, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    d.writeInt(b.length);
    d.write(b);
  }

  private static String string(DataInputStream d) throws IOException {
    int n = d.readInt();
    if (n < 0 || n > MAX_FRAME) {
      throw new IOException("not a tidemark driver request (a string of " + n + " bytes)");
    }
    byte[] b = new byte[n];
    d.readFully(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  /**
   * A channel's bytes as a stream that reads without the channel's blocking lock (the JDK's {@code Channels} streams
   * take it, and a read that waits for a cancel would then hold up every write of the command's output).
   */
  static InputStream in(SocketChannel ch) {
    return new InputStream() {
      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return len == 0 ? 0 : ch.read(ByteBuffer.wrap(b, off, len));
      }
    };
  }

  static OutputStream out(SocketChannel ch) {
    ByteSink sink = (b, off, len) -> {
      ByteBuffer buf = ByteBuffer.wrap(b, off, len);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
    };
    return sink.stream();
  }

  /** The bytes written to it as frames of {@code type}, a chunk a frame (a command's stdout, its stderr). */
  static OutputStream frames(OutputStream out, byte type) {
    ByteSink sink = (b, off, len) -> write(out, type, java.util.Arrays.copyOfRange(b, off, off + len));
    return sink.stream();
  }

  /** An output stream of chunks: what one write hands over goes on as one. */
  @FunctionalInterface
  interface ByteSink {
    void write(byte[] b, int off, int len) throws IOException;

    /** As an OutputStream. */
    default OutputStream stream() {
      ByteSink sink = this;
      return new OutputStream() {
        @Override
        public void write(int b) throws IOException {
          sink.write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          sink.write(b, off, len);
        }
      };
    }
  }

  /** What a caller asks the driver to run: as the caller's process would run it. */
  record Request(long pid, String workDir, java.util.List<String> args, java.util.Map<String, String> env) {}
}
