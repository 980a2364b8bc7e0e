package io.tidemark.restate;

import io.tidemark.config.ConfigException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;
import java.util.regex.Pattern;

/** A restatement run's id: part of its branch and tag names, and the key its stages find each other by. */
public final class RunId {
  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,80}");
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
      .withZone(ZoneOffset.UTC);

  private RunId() {}

  /** A new id: the time, then a random suffix, so that ids sort by time. */
  public static String generate() {
    return STAMP.format(Instant.now()) + "-" + UUID.randomUUID().toString().substring(0, 4);
  }

  /** The id, when it can name a Nessie reference; else a one-line error (exit 2). */
  public static String check(String id) {
    if (id == null || !VALID.matcher(id).matches()) {
      throw new ConfigException("--run-id: '" + id + "' is not a run id: 1 to 81 of letters, digits, '.', '_', '-', "
          + "starting with a letter or digit");
    }
    return id;
  }

  /** A prefix of branch and tag names: the run id's characters, or nothing. */
  public static String checkPrefix(String prefix) {
    if (prefix == null || !prefix.matches("([A-Za-z0-9][A-Za-z0-9._-]{0,80})?")) {
      throw new ConfigException("--ref-prefix: '" + prefix + "' cannot start a Nessie reference name: letters, "
          + "digits, '.', '_', '-', starting with a letter or digit");
    }
    return prefix;
  }
}
