package io.tidemark.fence;

import io.tidemark.CommandScope;
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
  private CommandScope scope = CommandScope.jvm();

  /**
   * Tables loaded so far by every catalog of this command (every cloned session makes its own catalog); in a JVM
   * that runs one command, by every catalog of the JVM.
   */
  public static long tableLoads() {
    return loads(CommandScope.current()).get();
  }

  private static AtomicLong loads(CommandScope scope) {
    return scope.get(Loads.class, Loads::new).count;
  }

  @Override
  public org.apache.iceberg.Table loadTable(org.apache.iceberg.catalog.TableIdentifier identifier) {
    loads(scope).incrementAndGet();
    return super.loadTable(identifier);
  }

  @Override
  public void initialize(String name, NessieIcebergClient client, FileIO fileIO, Map<String, String> options) {
    // the command whose session made this catalog: its loads are counted there, and it closes the catalog (the
    // Nessie client, the FileIO) when it ends, in the resident driver where the JVM outlives the command
    scope = CommandScope.of(options);
    scope.onClose(this);
    // a catalog pinned to a tag or a commit cannot commit: nothing to narrate
    NessieIcebergClient narrating = client instanceof NarratingNessieClient
        || !(client.getReference() instanceof org.projectnessie.model.Branch) ? client
        : new NarratingNessieClient(client.getApi(), client.refName(), null, options);
    super.initialize(name, narrating, fileIO, options);
  }

  private static final class Loads {
    final AtomicLong count = new AtomicLong();
  }
}
