package io.tidemark.fence;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.nessie.NessieIcebergClient;

/**
 * Iceberg's NessieCatalog whose table commits tell their story in the Nessie commit log (see
 * {@link io.tidemark.lakehouse.nessie.CommitStory}), and which counts the tables it loads.
 *
 * <p>Relies on: the Nessie Spark SQL extensions (CREATE BRANCH, MERGE BRANCH, SHOW LOG, ...) accept a catalog when its
 * class's simple name is NessieCatalog, so this one keeps that name; Iceberg's NessieCatalog hands its Nessie client
 * to the overridable {@code initialize(String, NessieIcebergClient, FileIO, Map)} and loads tables through
 * {@code loadTable}.
 */
public class NessieCatalog extends org.apache.iceberg.nessie.NessieCatalog {
  private static final AtomicLong LOADS = new AtomicLong();

  /** Tables loaded by every catalog of this JVM so far (every cloned session makes its own catalog). */
  public static long tableLoads() {
    return LOADS.get();
  }

  @Override
  public org.apache.iceberg.Table loadTable(org.apache.iceberg.catalog.TableIdentifier identifier) {
    LOADS.incrementAndGet();
    return super.loadTable(identifier);
  }

  /**
   * The catalog property that names the setting its reference comes from ({@code TIDEMARK_STAGING_BRANCH
   * (--staging-branch)} for a writer), so that a reference Nessie lacks is said as a setting to fix.
   */
  public static final String REF_SETTING = "tidemark.ref-setting";

  @Override
  public void initialize(String name, NessieIcebergClient client, FileIO fileIO, Map<String, String> options) {
    org.projectnessie.model.Reference ref = reference(client, options);
    // Iceberg's calls to Nessie absorb transient faults as tidemark's do: a table commit whose answer was lost is
    // looked for before it is made again, never made twice (Iceberg would report its state unknown and fail the job)
    org.projectnessie.client.api.NessieApiV1 api = io.tidemark.lakehouse.nessie.ResilientNessie.wrap(client.getApi());
    // a catalog pinned to a tag or a commit cannot commit: nothing to narrate
    NessieIcebergClient resilient = client instanceof NarratingNessieClient ? client
        : ref instanceof org.projectnessie.model.Tag
            ? new NessieIcebergClient(api, ref.getName(), ref.getHash(), options)
            : ref instanceof org.projectnessie.model.Branch
                ? new NarratingNessieClient(api, client.refName(), null, options) : client;
    super.initialize(name, resilient, fileIO, options);
  }

  /**
   * The catalog's reference. Iceberg says a missing one as "Nessie ref 'dev' does not exist" around the client's
   * NessieReferenceNotFoundException, once per session that starts the catalog (each stream of {@code stream all}):
   * said here once as the setting that names it and how to make it.
   */
  private static org.projectnessie.model.Reference reference(NessieIcebergClient client, Map<String, String> options) {
    try {
      return client.getReference();
    } catch (IllegalArgumentException e) {
      if (!(e.getCause() instanceof org.projectnessie.error.NessieNotFoundException)) {
        throw e;
      }
      String ref = options.getOrDefault("ref", "main");
      String uri = options.getOrDefault("uri", "");
      String ui = uri.contains("/api/") ? uri.substring(0, uri.indexOf("/api/")) : uri;
      String setting = options.get(REF_SETTING);
      String flag = setting == null || !setting.contains("(") ? null
          : setting.substring(setting.indexOf('(') + 1, setting.indexOf(')'));
      throw new io.tidemark.config.ConfigException("no branch or tag " + ref + " in Nessie at " + uri
          + (setting == null ? "" : ": " + setting + " names it") + "; make it with `tidemark bootstrap"
          + (flag == null ? "" : " " + flag + " " + ref) + "` or name one that exists (the Nessie UI at " + ui
          + " lists them)");
    }
  }
}
