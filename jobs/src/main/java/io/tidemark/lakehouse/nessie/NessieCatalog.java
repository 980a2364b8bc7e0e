package io.tidemark.lakehouse.nessie;

import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.nessie.NessieIcebergClient;

/**
 * Iceberg's NessieCatalog whose table commits tell their story in the Nessie commit log (see {@link CommitStory}).
 * It keeps the simple name {@code NessieCatalog} on purpose: the Nessie Spark SQL extensions (CREATE BRANCH, MERGE
 * BRANCH, SHOW LOG, ...) accept a catalog only when its class's simple name is NessieCatalog.
 */
public class NessieCatalog extends org.apache.iceberg.nessie.NessieCatalog {
  @Override
  public org.apache.iceberg.Table loadTable(org.apache.iceberg.catalog.TableIdentifier identifier) {
    io.tidemark.lakehouse.Work.tableLoaded();
    return super.loadTable(identifier);
  }

  @Override
  public void initialize(String name, NessieIcebergClient client, FileIO fileIO, Map<String, String> options) {
    // a catalog pinned to a tag or a commit cannot commit: nothing to narrate
    NessieIcebergClient narrating = client instanceof NarratingNessieClient
        || !(client.getReference() instanceof org.projectnessie.model.Branch) ? client
        : new NarratingNessieClient(client.getApi(), client.refName(), null, options);
    super.initialize(name, narrating, fileIO, options);
  }
}
