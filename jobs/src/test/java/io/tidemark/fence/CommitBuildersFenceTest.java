package io.tidemark.fence;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import org.projectnessie.client.api.CommitMultipleOperationsBuilder;
import org.projectnessie.model.CommitMeta;

/** The pinned Nessie client still sets a commit's metadata on the builder that then commits. */
class CommitBuildersFenceTest {
  @Test
  void theBuilderThatCommitsTakesItsMetadata() throws NoSuchMethodException {
    Method m = CommitBuilders.commitMeta();
    assertThat(m.getParameterTypes()).containsExactly(CommitMeta.class);
    assertThat(m.getReturnType()).isEqualTo(CommitMultipleOperationsBuilder.class);
    assertThat(CommitMultipleOperationsBuilder.class.getMethod("commit")).isNotNull();
  }
}
