package io.tidemark.driver;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * Where a resident driver listens and the key a caller proves it knows: natively a Unix socket in the tidemark home,
 * {@code <home>/run/driver.sock}, and the key file beside it, {@code driver.key} (both the owner's only), written by
 * the driver when it starts; on docker compose a host and port on the compose network
 * ({@code TIDEMARK_DRIVER_ADDRESS}) and the secret of {@code .env} ({@code TIDEMARK_DRIVER_SECRET}).
 */
public final class DriverAddress {
  public static final String ADDRESS_ENV = "TIDEMARK_DRIVER_ADDRESS";
  public static final String SECRET_ENV = "TIDEMARK_DRIVER_SECRET";
  public static final String MODE_ENV = "TIDEMARK_DRIVER";

  private final Path socket;
  private final String host;
  private final int port;
  private final Path keyFile;
  private final String secret;

  private DriverAddress(Path socket, String host, int port, Path keyFile, String secret) {
    this.socket = socket;
    this.host = host;
    this.port = port;
    this.keyFile = keyFile;
    this.secret = secret;
  }

  /** The driver of the tidemark home {@code home}: its Unix socket and key file. */
  public static DriverAddress ofHome(Path home) {
    Path run = home.resolve("run");
    return new DriverAddress(run.resolve("driver.sock"), null, 0, run.resolve("driver.key"), null);
  }

  /** A driver on the network, {@code host:port}, whose callers know {@code secret}. */
  public static DriverAddress ofNetwork(String hostPort, String secret) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0 || colon == hostPort.length() - 1) {
      throw new IllegalArgumentException(ADDRESS_ENV + ": host:port, not " + hostPort);
    }
    int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(ADDRESS_ENV + ": host:port, not " + hostPort, e);
    }
    return new DriverAddress(null, hostPort.substring(0, colon), port, null, secret);
  }

  /** The driver a caller with this environment talks to: on the network when it names one, else its home's. */
  public static DriverAddress of(Map<String, String> env, Path home) {
    String address = env.get(ADDRESS_ENV);
    return address == null || address.isBlank() ? ofHome(home) : ofNetwork(address.trim(), env.get(SECRET_ENV));
  }

  public boolean onNetwork() {
    return socket == null;
  }

  /** The Unix socket, natively. */
  public Optional<Path> socket() {
    return Optional.ofNullable(socket);
  }

  @Override
  public String toString() {
    return socket != null ? socket.toString() : host + ":" + port;
  }

  SocketAddress socketAddress() {
    return socket != null ? UnixDomainSocketAddress.of(socket) : new InetSocketAddress(host, port);
  }

  SocketChannel connect() throws IOException {
    SocketChannel ch = SocketChannel.open(socket != null ? StandardProtocolFamily.UNIX : StandardProtocolFamily.INET);
    try {
      if (socket == null) {
        // a driver host that does not answer must not hold the caller: it runs the command itself instead
        ch.socket().connect(socketAddress(), 3000);
      } else {
        ch.connect(socketAddress());
      }
      return ch;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** Listens: a Unix socket readable by the owner only, or the host and port. */
  ServerSocketChannel bind() throws IOException {
    if (socket == null) {
      return ServerSocketChannel.open(StandardProtocolFamily.INET).bind(socketAddress());
    }
    Files.createDirectories(socket.getParent());
    Files.deleteIfExists(socket);
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX).bind(socketAddress());
    Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
    return server;
  }

  /** The key a caller proves it knows; natively read from the key file (none: the driver is not started). */
  byte[] key() throws IOException {
    if (socket == null) {
      if (secret == null || secret.isBlank()) {
        throw new IOException(SECRET_ENV + " is not set (docker compose: it comes from .env)");
      }
      return secret.getBytes(StandardCharsets.UTF_8);
    }
    return HexFormat.of().parseHex(Files.readString(keyFile, StandardCharsets.US_ASCII).trim());
  }

  /** A new random key in the key file, the owner's only (the driver writes it as it starts). */
  byte[] newKey() throws IOException {
    if (socket == null) {
      return key();
    }
    byte[] key = Wire.nonce();
    Files.createDirectories(keyFile.getParent());
    Files.deleteIfExists(keyFile);
    Path tmp = keyFile.resolveSibling(keyFile.getFileName() + ".new");
    Files.deleteIfExists(tmp);
    Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(tmp, HexFormat.of().formatHex(key) + "\n", StandardCharsets.US_ASCII);
    Files.move(tmp, keyFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return key;
  }

  /** Removes the socket and the key file (the driver's stop). */
  void remove() {
    try {
      removeFiles();
    } catch (IOException e) {
      // a file left behind is found stale by the next caller, which then runs its command itself
    }
  }

  /** Removes the socket and the key file a driver left (`driver stop`, after a driver that was killed). */
  public void removeFiles() throws IOException {
    for (Path p : new Path[] {socket, keyFile}) {
      if (p != null) {
        Files.deleteIfExists(p);
      }
    }
  }
}
