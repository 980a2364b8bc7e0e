package io.tidemark.pipeline;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The versions of a feed's expectations, each with the first arrival it judges: what the file declared, as
 * {@code tidemark bootstrap} recorded it in the property {@value #PROPERTY} of the feed's raw archive (versioned by
 * Nessie with the data). A changed rule applies from the next arrival: bootstrap records it from the arrival after
 * the newest one landed or read, and every stream, the publish gate and the report judge an arrival by the version of
 * its number, never by today's file. Arrivals before the first version (a table made before expectations were kept)
 * are judged by none ({@link #NONE}).
 */
public record ExpectationVersions(List<Version> versions) {
  /** The raw archive's table property that keeps them, as JSON. */
  public static final String PROPERTY = "tidemark.expectations";

  /** Version {@code number} judges the arrivals from {@code fromArrival} on (until the next version's). */
  public record Version(int number, int fromArrival, List<Expectation> rules) {
    public Version {
      rules = List.copyOf(rules);
    }

    /** Its row expectations, in the file's order. */
    public List<Expectation> rows() {
      return rules.stream().filter(Expectation::isRow).toList();
    }

    /** Its arrival expectations, in the file's order. */
    public List<Expectation> arrivals() {
      return rules.stream().filter(e -> !e.isRow()).toList();
    }

    /** Whether its rules are those ({@link Expectation#definition}, in order). */
    public boolean declares(List<Expectation> others) {
      return definitions(rules).equals(definitions(others));
    }

    /** {@code v2 (from arrival 5)}. */
    public String label() {
      return number == 0 ? "no expectations" : "v" + number + " (from arrival " + fromArrival + ")";
    }
  }

  /** What judges the arrivals before the first version: nothing. */
  public static final Version NONE = new Version(0, 0, List.of());

  private static final ObjectMapper JSON = new ObjectMapper();

  public ExpectationVersions {
    versions = List.copyOf(versions);
    for (int i = 1; i < versions.size(); i++) {
      if (versions.get(i).fromArrival() <= versions.get(i - 1).fromArrival()) {
        throw new IllegalArgumentException("versions out of order: " + versions);
      }
    }
  }

  /** A feed's first version: its rules judge every arrival. */
  public static ExpectationVersions first(List<Expectation> rules) {
    return new ExpectationVersions(List.of(new Version(1, 1, rules)));
  }

  /** No version recorded yet. */
  public static ExpectationVersions empty() {
    return new ExpectationVersions(List.of());
  }

  public boolean isEmpty() {
    return versions.isEmpty();
  }

  /** The newest version ({@link #NONE} when there is none). */
  public Version latest() {
    return versions.isEmpty() ? NONE : versions.get(versions.size() - 1);
  }

  /** The version that judges arrival {@code arrival} (null: a line outside the landing layout, judged by the newest). */
  public Version of(Integer arrival) {
    if (arrival == null) {
      return latest();
    }
    Version out = NONE;
    for (Version v : versions) {
      if (v.fromArrival() <= arrival) {
        out = v;
      }
    }
    return out;
  }

  /**
   * The versions with {@code rules} recorded as judging the arrivals from {@code fromArrival} on: unchanged when the
   * newest version has these rules; a version that no arrival reached yet (its first arrival is {@code fromArrival}
   * or later) is replaced.
   */
  public ExpectationVersions then(List<Expectation> rules, int fromArrival) {
    if (!versions.isEmpty() && latest().declares(rules)) {
      return this;
    }
    List<Version> out = new ArrayList<>(versions);
    while (!out.isEmpty() && out.get(out.size() - 1).fromArrival() >= fromArrival) {
      out.remove(out.size() - 1);
    }
    out.add(new Version(latest().number() + 1, Math.max(1, fromArrival), rules));
    return new ExpectationVersions(out);
  }

  /** The versions as the table property keeps them. */
  public String json() {
    ArrayNode all = JSON.createArrayNode();
    for (Version v : versions) {
      ObjectNode o = all.addObject();
      o.put("version", v.number());
      o.put("from_arrival", v.fromArrival());
      ArrayNode rules = o.putArray("rules");
      for (Expectation e : v.rules()) {
        ObjectNode r = rules.addObject();
        r.put("name", e.name());
        r.put("kind", e.kind().field());
        r.put("action", e.action().word());
        if (e.condition() != null) {
          r.put("condition", e.condition());
        }
        if (e.column() != null) {
          r.put("column", e.column());
        }
        if (e.min() != null) {
          r.put("min", e.min());
        }
        if (e.max() != null) {
          r.put("max", e.max());
        }
        if (e.atMost() != null) {
          r.put("at_most", e.atMost());
        }
      }
    }
    return all.toString();
  }

  /** The versions a table property holds; {@code where} names the table in messages. */
  public static ExpectationVersions parse(String json, String where) {
    if (json == null || json.isBlank()) {
      return empty();
    }
    try {
      List<Version> out = new ArrayList<>();
      for (JsonNode v : JSON.readTree(json)) {
        List<Expectation> rules = new ArrayList<>();
        for (JsonNode r : v.get("rules")) {
          rules.add(new Expectation(r.get("name").asText(), Expectation.Kind.ofField(r.get("kind").asText()),
              Expectation.Action.parse(r.get("action").asText()), text(r, "condition"), text(r, "column"),
              r.hasNonNull("min") ? r.get("min").asLong() : null, r.hasNonNull("max") ? r.get("max").asLong() : null,
              r.hasNonNull("at_most") ? r.get("at_most").asDouble() : null, where));
        }
        out.add(new Version(v.get("version").asInt(), v.get("from_arrival").asInt(), rules));
      }
      return new ExpectationVersions(out);
    } catch (JsonProcessingException | RuntimeException e) {
      throw new IllegalStateException(where + ": the property " + PROPERTY + " is not what tidemark bootstrap wrote ("
          + e.getMessage() + ")", e);
    }
  }

  private static String text(JsonNode r, String field) {
    return r.hasNonNull(field) ? r.get(field).asText() : null;
  }

  private static List<String> definitions(List<Expectation> rules) {
    return rules.stream().map(Expectation::definition).toList();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ExpectationVersions other && json().equals(other.json());
  }

  @Override
  public int hashCode() {
    return Objects.hash(json());
  }
}
