package io.tidemark.maintain;

import io.tidemark.TidemarkException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.FileIO;

/**
 * The mark phase's second half: every file a live table version needs to be read, through Iceberg's own readers:
 * the metadata file, the snapshot's manifest list, its manifests, and their data and delete files, plus the
 * table's statistics files. A file that cannot be read aborts the mark: a sweep on an incomplete mark could
 * delete a live file. Paths are kept as {@code bucket/key}, whatever the scheme (s3, s3a).
 */
public final class ReachableFiles {
  private final FileIO io;
  private final Set<String> files = new HashSet<>();
  private final Set<String> manifestsRead = new HashSet<>();
  private final Map<String, TableMetadata> metadata = new HashMap<>();

  public ReachableFiles(FileIO io) {
    this.io = io;
  }

  public Set<String> files() {
    return files;
  }

  public int manifestsRead() {
    return manifestsRead.size();
  }

  public void addView(String metadataLocation) {
    files.add(key(metadataLocation));
  }

  public void add(LiveContents.TableVersion version) {
    TableMetadata m = metadata.computeIfAbsent(version.metadataLocation(), this::read);
    files.add(key(version.metadataLocation()));
    m.statisticsFiles().stream().map(StatisticsFile::path).forEach(p -> files.add(key(p)));
    m.partitionStatisticsFiles().stream().map(PartitionStatisticsFile::path).forEach(p -> files.add(key(p)));
    if (version.snapshotId() < 0) {
      return;  // a table never written: its metadata file is all there is
    }
    Snapshot s = m.snapshot(version.snapshotId());
    if (s == null) {
      throw new MaintenanceException("gc: snapshot " + version.snapshotId() + " is not in "
          + version.metadataLocation() + "; refusing to sweep");
    }
    if (s.manifestListLocation() != null) {
      files.add(key(s.manifestListLocation()));
    }
    for (ManifestFile manifest : s.allManifests(io)) {
      files.add(key(manifest.path()));
      if (manifestsRead.add(manifest.path())) {
        readManifest(manifest, m);
      }
    }
  }

  private void readManifest(ManifestFile manifest, TableMetadata m) {
    try (ManifestReader<? extends ContentFile<?>> reader = manifest.content() == ManifestContent.DATA
        ? ManifestFiles.read(manifest, io, m.specsById())
        : ManifestFiles.readDeleteManifest(manifest, io, m.specsById())) {
      for (ContentFile<?> f : reader) {
        files.add(key(f.location()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private TableMetadata read(String location) {
    try {
      return TableMetadataParser.read(io, location);
    } catch (org.apache.iceberg.exceptions.NotFoundException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new MaintenanceException("gc: cannot read the live table metadata " + location + " ("
          + TidemarkException.firstLine(e) + "); refusing to sweep", e);
    }
  }

  /** {@code s3://bucket/key} (or s3a://, s3n://) as {@code bucket/key}. */
  public static String key(String location) {
    int scheme = location.indexOf("://");
    return scheme < 0 ? location : location.substring(scheme + 3);
  }
}
