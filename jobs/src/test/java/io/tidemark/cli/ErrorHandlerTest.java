package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.tidemark.stream.StreamException;
import io.tidemark.stream.StreamsFailed;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The lines a failure becomes: each failure of `stream all` once, a library's failure pointing at its trace. */
class ErrorHandlerTest {
  @TempDir
  Path home;

  private String handle(Exception e) {
    CommandLine cl = Tidemark.commandLine(Map.of("TIDEMARK_HOME", home.toString()));
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    int code = new ErrorHandler().handleExecutionException(e, cl, cl.parseArgs("config"));
    assertThat(code).isEqualTo(ErrorHandler.FAILED);
    return err.toString();
  }

  @Test
  void everyFailureOfStreamAllIsALineTheFirstFirst() {
    StreamException counts = new StreamException("windowed-counts failed: CommitFailedException: conflict",
        new IllegalStateException("conflict"));
    StreamException dedup = new StreamException("dedup failed: out of disk");
    Throwable several = catchThrowable(() -> StreamsFailed.throwIfAny(List.of(counts, dedup)));

    assertThat(handle((Exception) several).lines()).containsExactly(
        "tidemark: windowed-counts failed: CommitFailedException: conflict [--debug shows the stack trace]",
        "tidemark: also dedup failed: out of disk");
  }

  @Test
  void aLibrarysIllegalArgumentPointsAtItsTrace() {
    IllegalStateException shared = new IllegalStateException("x");
    // what Throwable.addSuppressed threw when two runs failed with one exception
    Throwable selfSuppression = catchThrowable(() -> shared.addSuppressed(shared));

    assertThat(ErrorHandler.describe(selfSuppression)).as("its cause, the exception it was given")
        .isEqualTo("IllegalStateException: x [--debug shows the stack trace]");
    assertThat(ErrorHandler.describe(new IllegalArgumentException("--arrivals must be >= 1")))
        .as("one of ours says what to fix").isEqualTo("--arrivals must be >= 1");
  }

  @Test
  void oursWithoutALibrarysCauseIsTheLineAlone() {
    assertThat(ErrorHandler.describe(new StreamException("no landing zone at s3://x/events/")))
        .isEqualTo("no landing zone at s3://x/events/");
  }
}
