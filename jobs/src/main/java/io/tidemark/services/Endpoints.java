package io.tidemark.services;

import io.tidemark.config.Secret;
import java.net.URI;

/**
 * Where the jobs find the catalog and the storage, resolved from the configuration: the external endpoints,
 * or the embedded servers with their generated credentials.
 */
public record Endpoints(URI nessieApi, URI s3Endpoint, Secret s3AccessKey, Secret s3SecretKey) {

  /** The Nessie web UI: the API address without its {@code /api/v2} path. */
  public String nessieUi() {
    String api = nessieApi.toString();
    int at = api.indexOf("/api/");
    return (at < 0 ? api : api.substring(0, at)) + "/";
  }
}
