package io.tidemark.testing;

import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.land.Arrival;
import io.tidemark.land.Lander;
import io.tidemark.land.LandingLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A landing zone of one test on the shared stack's S3 server: a unique prefix of the stack's landing bucket, or a
 * bucket of its own. Lands arrivals with the real {@link Lander} and remembers them, so that the files of each can
 * be handed to an oracle.
 */
public final class Landing {
  private final Storage storage;
  private final String bucket;
  private final String prefix;
  private final Lander lander;
  private final List<Arrival> landed = new ArrayList<>();

  private Landing(TestStack stack, String bucket, String prefix) {
    this.storage = stack.lakehouse().storage();
    this.bucket = bucket;
    this.prefix = prefix;
    this.lander = new Lander(storage, bucket, prefix);
  }

  /** Under a unique prefix ({@code name} and a random suffix) of the stack's landing bucket. */
  public static Landing under(TestStack stack, String name) {
    return new Landing(stack, stack.config().landingBucket(), TestStack.unique(name));
  }

  /** At the top of a bucket, created when missing (e.g. the landing bucket of a configuration of its own). */
  public static Landing bucket(TestStack stack, String bucket) {
    stack.lakehouse().storage().ensureBucket(bucket);
    return new Landing(stack, bucket, "");
  }

  public Lander lander() {
    return lander;
  }

  /** Where the stream reads a dataset from (s3a). */
  public String source(String feed) {
    return lander.sourceUri(feed);
  }

  public Landing land(Arrival arrival) {
    lander.land(arrival);
    landed.add(arrival);
    return this;
  }

  public Landing land(List<Arrival> arrivals) {
    arrivals.forEach(this::land);
    return this;
  }

  /** Local copies of the files one arrival landed for a dataset, read back from S3 (DuckDB reads local files). */
  public List<Path> download(String feed, int arrival, Path dir) {
    String dirPrefix = (prefix.isEmpty() ? "" : prefix + "/") + LandingLayout.dir(feed, arrival);
    return StreamFixture.download(storage, bucket, dirPrefix, dir);
  }

  /** Local copies of every arrival landed so far for a dataset, one list per arrival, in order. */
  public List<List<Path>> downloadEach(String feed, Path dir) {
    List<List<Path>> out = new ArrayList<>();
    for (Arrival a : landed) {
      out.add(download(feed, a.number(), dir));
    }
    return out;
  }
}
