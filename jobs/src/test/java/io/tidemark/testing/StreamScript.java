package io.tidemark.testing;

import io.tidemark.land.Arrival;
import io.tidemark.stream.RunReport;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A test about a sequence of arrivals, written as the script it is: an arrival lands, the streams run, something
 * happens in between, and what must hold then is expected. The streams to run are named once; the reports of
 * every run are kept, in order.
 */
public final class StreamScript {
  private final Consumer<Arrival> lands;
  private final Supplier<List<RunReport>> streams;
  private final List<List<RunReport>> runs = new ArrayList<>();

  private StreamScript(Consumer<Arrival> lands, Supplier<List<RunReport>> streams) {
    this.lands = lands;
    this.streams = streams;
  }

  /**
   * A script whose arrivals land with {@code lands} (e.g. {@code landing::land}, or into a local directory) and
   * whose run step runs {@code streams}, one after the other.
   */
  @SafeVarargs
  public static StreamScript of(Consumer<Arrival> lands, Supplier<RunReport>... streams) {
    List<Supplier<RunReport>> each = List.of(streams);
    return new StreamScript(lands, () -> each.stream().map(Supplier::get).toList());
  }

  /** The arrival lands. */
  public StreamScript arrive(Arrival arrival) {
    lands.accept(arrival);
    return this;
  }

  /** The streams run once. */
  public StreamScript run() {
    runs.add(streams.get());
    return this;
  }

  /** What a test does after a step: expectations, a change of setting; may throw what a test method throws. */
  @FunctionalInterface
  public interface Step<T> {
    void accept(T value) throws Exception;
  }

  /** For each arrival in turn: it lands, the streams run, then {@code after} (expectations, changes). */
  public StreamScript eachArrival(List<Arrival> arrivals, Step<Arrival> after) throws Exception {
    for (Arrival a : arrivals) {
      arrive(a).run();
      after.accept(a);
    }
    return this;
  }

  public StreamScript eachArrival(List<Arrival> arrivals) throws Exception {
    return eachArrival(arrivals, a -> { });
  }

  /** Something that happens between the steps. */
  public StreamScript then(Step<StreamScript> step) throws Exception {
    step.accept(this);
    return this;
  }

  /** What must hold at this point of the script. */
  public StreamScript expect(Step<StreamScript> check) throws Exception {
    check.accept(this);
    return this;
  }

  /** The reports of the k-th run (from 1), one per stream in the order given. */
  public List<RunReport> run(int k) {
    return runs.get(k - 1);
  }

  /** The report of the k-th run of a single-stream script. */
  public RunReport report(int k) {
    return run(k).get(0);
  }

  /** The report of the latest run, of the i-th stream (from 0). */
  public RunReport last(int stream) {
    return runs.get(runs.size() - 1).get(stream);
  }

  public List<List<RunReport>> runs() {
    return runs;
  }
}
