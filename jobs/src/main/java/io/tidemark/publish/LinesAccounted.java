package io.tidemark.publish;

import io.tidemark.audit.AuditCheck;
import io.tidemark.config.Tables;
import io.tidemark.core.Ingest;
import io.tidemark.core.Lines;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.iceberg.data.Record;

/**
 * Every line of each landed file the raw archives read is archived or quarantined ({@link Lines}): the staged rows
 * of the archives and the quarantine, per source file, against the file's lines as it lies in the landing zone (a
 * file no longer there is not recounted).
 */
final class LinesAccounted extends ArrivalCheck {
  static final String NAME = "lines-accounted";

  LinesAccounted() {
    super(NAME);
  }

  @Override
  AuditCheck run(Staged staged, CheckReads reads) {
    Tables t = reads.tables();
    String sourceFile = Ingest.SOURCE_FILE.name();
    Map<String, long[]> perFile = new TreeMap<>();
    List<CompletableFuture<List<Record>>> read = List.of(t.rawEvents(), t.rawCompanyChanges(), t.rejected())
        .stream().map(raw -> reads.async(() -> CheckReads.appended(staged, raw, List.of(sourceFile)))).toList();
    for (CompletableFuture<List<Record>> rows : read) {
      for (Record r : CheckReads.join(rows)) {
        perFile.computeIfAbsent((String) r.getField(sourceFile), f -> new long[1])[0]++;
      }
    }
    Map<String, CompletableFuture<Optional<Long>>> landedLines = new LinkedHashMap<>();
    perFile.keySet().forEach(f -> landedLines.put(f, reads.async(() -> landedLines(reads, f))));
    List<String> bad = new java.util.ArrayList<>();
    int cleaned = 0;
    long lines = 0;
    for (Map.Entry<String, long[]> e : perFile.entrySet()) {
      Optional<Long> landed = CheckReads.join(landedLines.get(e.getKey()));
      if (landed.isEmpty()) {
        cleaned++;
        continue;
      }
      lines += landed.get();
      // a file's rows are the archive's and the quarantine's together: one count of both
      if (!new Lines.Account(landed.get(), e.getValue()[0], 0).balanced()) {
        bad.add(e.getKey() + ": " + landed.get() + " line(s) landed, " + e.getValue()[0] + " archived or quarantined");
      }
    }
    return AuditCheck.of(NAME, t.rawEvents() + ", " + t.rawCompanyChanges() + ", " + t.rejected(), bad.size(),
        bad.isEmpty() ? perFile.size() + " landed file(s), " + lines + " line(s), each archived or quarantined"
            + (cleaned > 0 ? " (" + cleaned + " file(s) no longer in the landing zone, not recounted)" : "")
            : CheckReads.first(bad));
  }

  /** Lines of a landed file, or empty when it is gone (cleaned up or archived after it was read). */
  private static Optional<Long> landedLines(CheckReads reads, String sourceFile) {
    URI uri = URI.create(sourceFile);
    if (!reads.config().landingBucket().equals(uri.getHost())) {
      return Optional.empty();
    }
    String key = uri.getPath().replaceFirst("^/", "");
    if (reads.storage().stat(uri.getHost(), key).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(Lines.count(reads.storage().get(uri.getHost(), key)));
  }
}
