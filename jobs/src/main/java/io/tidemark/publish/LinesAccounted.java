package io.tidemark.publish;

import io.tidemark.audit.AuditCheck;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.config.TableName;
import io.tidemark.core.Ingest;
import io.tidemark.core.KeyAccount;
import io.tidemark.core.Lines;
import io.tidemark.core.Quarantine;
import io.tidemark.core.Rescued;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.iceberg.data.Record;

/**
 * Every line of each landed file the raw archives read is archived or quarantined ({@link Lines}), and every key of
 * every line with it ({@link KeyAccount}: in a typed column, in the rescued data, or in a quarantined line): the
 * staged rows of the archives and the quarantine, per source file, against the file as it lies in the landing zone (a
 * file no longer there is not recounted). The file is read once for both counts.
 */
final class LinesAccounted extends ArrivalCheck {
  static final String NAME = "lines-accounted";

  LinesAccounted() {
    super(NAME);
  }

  @Override
  AuditCheck run(Staged staged, CheckReads reads) {
    Pipeline p = reads.pipeline();
    String sourceFile = Ingest.SOURCE_FILE.name();
    Map<String, File> perFile = new TreeMap<>();
    List<TableName> archives = p.rawTables();
    Map<TableName, CompletableFuture<List<Record>>> read = new LinkedHashMap<>();
    for (TableName raw : archives) {
      List<String> typed = typedColumns(staged, raw);
      List<String> columns = new ArrayList<>(typed);
      columns.add(sourceFile);
      columns.add(Rescued.DATA.name());
      read.put(raw, reads.async(() -> CheckReads.appended(staged, raw, columns)));
    }
    read.put(p.shared().rejected(), reads.async(() -> CheckReads.appended(staged, p.shared().rejected(),
        List.of(sourceFile, Quarantine.LINE.name()))));
    for (Map.Entry<TableName, CompletableFuture<List<Record>>> rows : read.entrySet()) {
      boolean archive = archives.contains(rows.getKey());
      List<String> typed = archive ? typedColumns(staged, rows.getKey()) : List.of();
      for (Record r : CheckReads.join(rows.getValue())) {
        File f = perFile.computeIfAbsent((String) r.getField(sourceFile), k -> new File());
        f.rows++;
        if (archive) {
          List<String> withValue = new ArrayList<>();
          typed.forEach(c -> {
            if (r.getField(c) != null) {
              withValue.add(c);
            }
          });
          f.keys.archived(withValue, (String) r.getField(Rescued.DATA.name()));
        } else {
          f.keys.quarantined((String) r.getField(Quarantine.LINE.name()));
        }
      }
    }
    Map<String, CompletableFuture<Optional<byte[]>>> landed = new LinkedHashMap<>();
    perFile.keySet().forEach(f -> landed.put(f, reads.async(() -> landedFile(reads, f))));
    List<String> bad = new ArrayList<>();
    int cleaned = 0;
    long lines = 0;
    long values = 0;
    for (Map.Entry<String, File> e : perFile.entrySet()) {
      Optional<byte[]> content = CheckReads.join(landed.get(e.getKey()));
      if (content.isEmpty()) {
        cleaned++;
        continue;
      }
      long n = Lines.count(content.get());
      lines += n;
      File f = e.getValue();
      // a file's rows are the archive's and the quarantine's together: one count of both
      if (!new Lines.Account(n, f.rows, 0).balanced()) {
        bad.add(e.getKey() + ": " + n + " line(s) landed, " + f.rows + " archived or quarantined");
        continue;
      }
      f.keys.landedFile(content.get());
      values += f.keys.landedValues();
      f.keys.unbalanced().forEach(k -> bad.add(e.getKey() + ": " + k));
    }
    return AuditCheck.of(NAME, String.join(", ", archives.stream().map(TableName::toString).toList()) + ", "
        + p.shared().rejected(), bad.size(),
        bad.isEmpty() ? perFile.size() + " landed file(s), " + lines + " line(s), each archived or quarantined, "
            + values + " value(s), each in a typed column, the rescued data or a quarantined line"
            + (cleaned > 0 ? " (" + cleaned + " file(s) no longer in the landing zone, not recounted)" : "")
            : CheckReads.first(bad));
  }

  /** A landed file's rows in the archives and the quarantine, and its keys as they hold them. */
  private static final class File {
    long rows;
    final KeyAccount keys = new KeyAccount();
  }

  /**
   * The typed columns of a raw archive as staged: the feed's fields, promoted ones too (every column but where a row
   * came from and the rescued data). Each is named as the key of a line it holds.
   */
  private static List<String> typedColumns(Staged staged, TableName raw) {
    Staged.Change c = staged.changes().get(raw);
    if (c == null) {
      return List.of();
    }
    return c.table().schema().columns().stream().map(f -> f.name())
        .filter(n -> !Ingest.SCHEMA.names().contains(n) && !n.equals(Rescued.DATA.name())).toList();
  }

  /** A landed file's content, or empty when it is gone (cleaned up or archived after it was read). */
  private static Optional<byte[]> landedFile(CheckReads reads, String sourceFile) {
    URI uri = URI.create(sourceFile);
    if (!reads.config().landingBucket().equals(uri.getHost())) {
      return Optional.empty();
    }
    String key = uri.getPath().replaceFirst("^/", "");
    if (reads.storage().stat(uri.getHost(), key).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(reads.storage().get(uri.getHost(), key));
  }
}
