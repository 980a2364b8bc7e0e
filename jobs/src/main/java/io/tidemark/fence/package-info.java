/**
 * Every reach of tidemark into a library's internals, fenced off here and nowhere else: what Iceberg, Nessie and Spark
 * do not offer as API, but tidemark relies on. Each class says what it relies on; each has a test
 * ({@code io.tidemark.fence.*FenceTest}, {@code FencesIT}) that fails naming the class when the pinned library no
 * longer behaves that way, and {@code FencedInternalsTest} fails when code outside this package reaches the same
 * internals. To upgrade Iceberg, Nessie or Spark: run those tests first.
 *
 * <ul>
 *   <li>{@link io.tidemark.fence.NessieCatalog}: a subclass of Iceberg's NessieCatalog, named so on purpose (the
 *       Nessie Spark extensions accept a catalog by its class's simple name), whose commits tell their story;</li>
 *   <li>{@link io.tidemark.fence.NarratingNessieClient}: Iceberg's Nessie client with its commit metadata replaced,
 *       through a proxy of the Nessie API's commit builder;</li>
 *   <li>{@link io.tidemark.fence.AsLoaded}: Iceberg's {@code TableOperations} replaced, to commit from the metadata
 *       a table was loaded with;</li>
 *   <li>{@link io.tidemark.fence.DeleteLoading}: protected hooks of Iceberg's delete loaders overridden, to load a
 *       delete file once per read;</li>
 *   <li>{@link io.tidemark.fence.OffsetLog}: Spark's streaming checkpoint (offset and commit logs) read, and a
 *       no-data batch planned in it by hand;</li>
 *   <li>{@link io.tidemark.fence.SourceFileLog}: Spark's internal {@code FileStreamSourceLog} read, for which files a
 *       batch read.</li>
 * </ul>
 */
package io.tidemark.fence;
