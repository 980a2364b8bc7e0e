package io.tidemark.land;

import io.tidemark.lakehouse.storage.Storage;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeSet;

/**
 * Writes arrivals into the landing zone: {@code s3://<bucket>/<prefix>/} and then the {@link LandingLayout}. An
 * arrival is immutable: landing the same content again is a no-op, other content for an existing object is
 * refused. Each object is written whole (an S3 PUT), so a stream never sees half a file, and a landing that
 * was interrupted completes on the next run.
 */
public final class Lander {
  private final Storage storage;
  private final String bucket;
  private final String prefix;

  /** What happened to one file. */
  public record Outcome(String uri, long bytes, long lines, boolean written) {}

  public Lander(Storage storage, String bucket, String prefix) {
    this.storage = storage;
    this.bucket = bucket;
    this.prefix = normalize(prefix);
  }

  /** The landing prefix of a feed, as Spark reads it (s3a). */
  public String sourceUri(String feed) {
    return sourceUri(bucket, prefix, feed);
  }

  /** Where a feed lands under {@code prefix} of {@code bucket}, as Spark reads it (s3a). */
  public static String sourceUri(String bucket, String prefix, String feed) {
    return "s3a://" + bucket + "/" + normalize(prefix) + feed + "/";
  }

  public List<Outcome> land(Arrival arrival) {
    List<Outcome> out = new ArrayList<>();
    for (LandingFile f : arrival.files()) {
      String key = key(f.feed(), arrival.number(), f.name());
      String uri = "s3://" + bucket + "/" + key;
      Optional<Storage.ObjectInfo> existing = storage.stat(bucket, key);
      boolean write = existing.isEmpty();
      if (existing.isPresent() && !sameContent(existing.get(), key, f.content())) {
        throw new LandingException(uri + " already landed with other content; arrivals are immutable: "
            + "land this as a new arrival or under another --prefix");
      }
      if (write) {
        storage.put(bucket, key, f.content(), "application/x-ndjson");
      }
      out.add(new Outcome(uri, f.content().length, f.lines(), write));
    }
    return out;
  }

  /** The highest arrival number landed for a feed, or 0. */
  public int lastArrival(String feed) {
    return arrivalNumbers(feed).stream().mapToInt(Integer::intValue).max().orElse(0);
  }

  /** An arrival of the feed that already holds exactly these files, if any. */
  public OptionalInt findIdentical(String feed, List<LandingFile> files) {
    for (int n : arrivalNumbers(feed)) {
      boolean all = !files.isEmpty();
      for (LandingFile f : files) {
        String key = key(feed, n, f.name());
        Optional<Storage.ObjectInfo> o = storage.stat(bucket, key);
        if (o.isEmpty() || !sameContent(o.get(), key, f.content())) {
          all = false;
          break;
        }
      }
      if (all) {
        return OptionalInt.of(n);
      }
    }
    return OptionalInt.empty();
  }

  /** Every object landed for a feed. */
  public List<Storage.ObjectInfo> listed(String feed) {
    return storage.list(bucket, prefix + feed + "/");
  }

  private TreeSet<Integer> arrivalNumbers(String feed) {
    TreeSet<Integer> numbers = new TreeSet<>();
    for (Storage.ObjectInfo o : listed(feed)) {
      LandingLayout.arrivalOf(o.key()).ifPresent(numbers::add);
    }
    return numbers;
  }

  String key(String feed, int arrival, String name) {
    return prefix + LandingLayout.path(feed, arrival, name);
  }

  private boolean sameContent(Storage.ObjectInfo existing, String key, byte[] content) {
    if (existing.size() != content.length) {
      return false;
    }
    // a single-part upload's ETag is the MD5 of its content; anything else is compared byte by byte
    if (existing.etag().equalsIgnoreCase(md5(content))) {
      return true;
    }
    return Arrays.equals(storage.get(bucket, key), content);
  }

  private static String md5(byte[] content) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** "" or a path ending in one slash, with no leading slash; only safe characters. */
  static String normalize(String prefix) {
    if (prefix == null || prefix.isBlank()) {
      return "";
    }
    String p = prefix.trim().replaceAll("^/+", "").replaceAll("/+$", "");
    if (!p.matches("[A-Za-z0-9._=/-]+") || p.contains("..") || p.contains("//")) {
      throw new IllegalArgumentException("landing prefix '" + prefix + "' may only hold letters, digits and ._=-/");
    }
    return p + "/";
  }
}
