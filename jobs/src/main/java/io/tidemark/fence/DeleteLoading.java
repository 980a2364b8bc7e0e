package io.tidemark.fence;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.DeleteFilter;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.InputFile;

/**
 * Delete files loaded once per read: a merge-on-read table's delete files (the SCD2 dimension gains one per commit)
 * each apply to many data files, and Iceberg's generic reader, caching nothing on the driver, would read every one of
 * them again for each data file it reads.
 *
 * <p>Relies on two protected hooks: {@code BaseDeleteLoader} asks {@code canCache(size)} before it loads a delete
 * file's contents and then goes through {@code getOrLoad(key, loader, size)}, which this loader answers from a map of
 * its own; and {@code GenericDeleteFilter} (through {@code DeleteFilter}) takes its loader from
 * {@code newDeleteLoader()}, overridden to hand over a shared one.
 */
public final class DeleteLoading {
  private DeleteLoading() {}

  /** A loader that loads each delete file of {@code table} once, however many data files it applies to. */
  public static DeleteLoader once(Table table) {
    return once(file -> table.io().newInputFile(file.location()));
  }

  /** The same, opening the delete files with {@code open}. */
  public static DeleteLoader once(Function<DeleteFile, InputFile> open) {
    return new Once(open);
  }

  /** The delete filter of one planned file of {@code table}, loading its delete files through {@code loader}. */
  public static DeleteFilter<Record> filter(Table table, FileScanTask task, Schema projection, DeleteLoader loader) {
    return new GenericDeleteFilter(table.io(), task, table.schema(), projection) {
      @Override
      protected DeleteLoader newDeleteLoader() {
        return loader;
      }
    };
  }

  private static final class Once extends BaseDeleteLoader {
    private final Map<String, Object> loaded = new ConcurrentHashMap<>();

    Once(Function<DeleteFile, InputFile> open) {
      super(open);
    }

    @Override
    protected boolean canCache(long size) {
      return true;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected <V> V getOrLoad(String key, Supplier<V> load, long size) {
      return (V) loaded.computeIfAbsent(key, k -> load.get());
    }
  }
}
