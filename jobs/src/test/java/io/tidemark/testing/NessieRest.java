package io.tidemark.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/** Reads Nessie over its REST API v2, independently of the code under test: hashes and commit logs. */
public final class NessieRest {
  private static final ObjectMapper JSON = new ObjectMapper();
  // HTTP/1.1: the JDK client's HTTP/2 upgrade misreads a long log's response from the Nessie server as a frame
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final URI api;

  public NessieRest(URI api) {
    this.api = api;
  }

  /** The hash of the head of a reference. */
  public String hash(String ref) {
    return get("trees/" + ref).path("reference").path("hash").asText();
  }

  public boolean exists(String ref) {
    return status("trees/" + ref) == 200;
  }

  /** Commit hashes of a reference, newest first. */
  public List<String> log(String ref) {
    List<String> hashes = new ArrayList<>();
    for (JsonNode e : get("trees/" + ref + "/history?max-records=1000").path("logEntries")) {
      hashes.add(e.path("commitMeta").path("hash").asText());
    }
    return hashes;
  }

  /** A commit as the Nessie UI shows it in a log. */
  public record Commit(String author, String message) {}

  /** The commits of a reference with their authors and messages, newest first. */
  public List<Commit> commits(String ref) {
    List<Commit> commits = new ArrayList<>();
    for (JsonNode e : get("trees/" + ref + "/history?max-records=1000").path("logEntries")) {
      JsonNode meta = e.path("commitMeta");
      commits.add(new Commit(meta.path("authors").path(0).asText(meta.path("author").asText()),
          meta.path("message").asText()));
    }
    return commits;
  }

  /** The commits made on a reference since the commit {@code hash}, newest first. */
  public List<Commit> commitsSince(String ref, String hash) {
    List<Commit> commits = new ArrayList<>();
    for (JsonNode e : get("trees/" + ref + "/history?max-records=1000").path("logEntries")) {
      JsonNode meta = e.path("commitMeta");
      if (meta.path("hash").asText().equals(hash)) {
        return commits;
      }
      commits.add(new Commit(meta.path("authors").path(0).asText(meta.path("author").asText()),
          meta.path("message").asText()));
    }
    throw new AssertionError(hash + " is not in the log of " + ref);
  }

  /** A commit with everything a publish writes into it, newest first in {@link #entriesSince}. */
  public record Entry(String hash, String author, String message, java.util.Map<String, String> properties) {}

  /** The commits made on a reference since the commit {@code hash}, with their properties, newest first. */
  public List<Entry> entriesSince(String ref, String hash) {
    List<Entry> out = new ArrayList<>();
    for (JsonNode e : get("trees/" + ref + "/history?max-records=1000").path("logEntries")) {
      JsonNode meta = e.path("commitMeta");
      if (meta.path("hash").asText().equals(hash)) {
        return out;
      }
      java.util.Map<String, String> props = new java.util.TreeMap<>();
      // API v2 sends every value of a key as a list (allProperties); v1's single values as properties
      meta.path("properties").fields().forEachRemaining(f -> props.put(f.getKey(), f.getValue().asText()));
      meta.path("allProperties").fields().forEachRemaining(f -> props.put(f.getKey(),
          f.getValue().isArray() ? f.getValue().path(0).asText() : f.getValue().asText()));
      out.add(new Entry(meta.path("hash").asText(), meta.path("authors").path(0).asText(meta.path("author").asText()),
          meta.path("message").asText(), props));
    }
    throw new AssertionError(hash + " is not in the log of " + ref);
  }

  /** The content keys ("ns.table") whose content differs between the heads of two references. */
  public List<String> diff(String from, String to) {
    List<String> keys = new ArrayList<>();
    for (JsonNode d : get("trees/" + from + "/diff/" + to + "?max-records=1000").path("diffs")) {
      List<String> parts = new ArrayList<>();
      d.path("key").path("elements").forEach(p -> parts.add(p.asText()));
      keys.add(String.join(".", parts));
    }
    return keys;
  }

  private JsonNode get(String path) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api + "/" + path)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new AssertionError("GET " + path + " -> HTTP " + r.statusCode() + ": " + r.body());
      }
      return JSON.readTree(r.body());
    } catch (Exception e) {
      throw new AssertionError("GET " + api + "/" + path, e);
    }
  }

  private int status(String path) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create(api + "/" + path)).GET().build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (Exception e) {
      throw new AssertionError("GET " + api + "/" + path, e);
    }
  }
}
