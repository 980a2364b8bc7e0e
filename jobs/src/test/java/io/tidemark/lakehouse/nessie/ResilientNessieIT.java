package io.tidemark.lakehouse.nessie;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.services.Endpoints;
import io.tidemark.testing.FaultProxy;
import io.tidemark.testing.FaultProxy.Fault;
import io.tidemark.testing.FaultProxy.Rule;
import io.tidemark.testing.NessieRest;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.TestStack;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.projectnessie.client.NessieClientBuilder;
import org.projectnessie.client.api.NessieApiV2;
import org.projectnessie.model.Branch;
import org.projectnessie.model.CommitMeta;
import org.projectnessie.model.ContentKey;
import org.projectnessie.model.Namespace;
import org.projectnessie.model.Operation;

/**
 * Every kind of call tidemark makes to Nessie, through a proxy that fails it on purpose once
 * ({@link FaultProxy}): a change whose answer was lost (a branch made, a commit, a merge, an assignment, a branch
 * deleted) is found done and not made again; one closed unanswered or answered 503 is made again; a page of a long
 * log is fetched again, not the log. The shared stack's Nessie, read behind the proxy's back ({@link NessieRest}) to
 * see what happened once.
 */
class ResilientNessieIT extends StackTest {
  @Test
  void everyChangeWhoseAnswerIsLostIsFoundDoneAndMadeOnce() throws Exception {
    String base = TestStack.unique("resilient");
    NessieRest nessie = stack.nessie();
    try (FaultProxy proxy = new FaultProxy("nessie", stack.endpoints().nessieApi().getPort(), 0, 0, 1);
         NessieRefs refs = new NessieRefs(new Endpoints(proxy.uri("/api/v2"), stack.endpoints().s3Endpoint(),
             stack.endpoints().s3AccessKey(), stack.endpoints().s3SecretKey()))) {
      String main = refs.defaultBranch();
      proxy.rule(Rule.of("POST", "/api/v2/trees(\\?|$)", Fault.LOSE_ANSWER, 1));
      Branch made = refs.createBranch(base, refs.branch(main));
      assertThat(nessie.hash(base)).as("the branch made, though its answer was lost").isEqualTo(made.getHash());

      proxy.rule(Rule.of("POST", "/history/commit", Fault.LOSE_ANSWER, 1));
      Branch marked = refs.mark(base, "a mark whose answer is lost", "test", Map.of("test.step", "lost"));
      assertThat(nessie.commits(base)).as("one commit, not two").filteredOn(c -> c.message().equals(
          "a mark whose answer is lost")).hasSize(1);
      assertThat(nessie.hash(base)).isEqualTo(marked.getHash());

      proxy.rule(Rule.of("POST", "/history/commit", Fault.CLOSE_UNANSWERED, 1));
      refs.mark(base, "a mark closed unanswered", "test", Map.of());
      proxy.rule(Rule.of("POST", "/history/commit", Fault.ANSWER_503, 1));
      refs.mark(base, "a mark answered 503", "test", Map.of());
      assertThat(nessie.commits(base)).extracting(NessieRest.Commit::message).containsSubsequence(
          "a mark answered 503", "a mark closed unanswered", "a mark whose answer is lost");

      String other = base + "_other";
      Branch o = refs.createBranch(other, refs.branch(base));
      putNamespace(other, base + "_merged"); // a change to merge: a merge of marks alone changes nothing
      Branch into = refs.branch(base);
      proxy.rule(Rule.of("POST", "/history/merge", Fault.LOSE_ANSWER, 1));
      String merged = refs.mergeExpecting(into, other, refs.branch(other).getHash(), "the merge whose answer is lost",
          "test", Map.of());
      assertThat(nessie.commits(base)).filteredOn(c -> c.message().equals("the merge whose answer is lost"))
          .as("one merge commit").hasSize(1);
      assertThat(nessie.hash(base)).isEqualTo(merged);

      proxy.rule(Rule.of("PUT", "/api/v2/trees/" + base, Fault.LOSE_ANSWER, 1));
      refs.reset(base, made.getHash());
      assertThat(nessie.hash(base)).as("assigned once").isEqualTo(made.getHash());

      proxy.rule(Rule.of("DELETE", "/api/v2/trees/" + other, Fault.LOSE_ANSWER, 1));
      assertThat(refs.deleteBranchAt(other, refs.branch(other).getHash())).isTrue();
      assertThat(nessie.exists(other)).isFalse();
      assertThat(o).isNotNull();

      // a long log read a page at a time: its second page closed unanswered, fetched again
      for (int i = 0; i < 60; i++) {
        refs.mark(base, "page " + i, "test", Map.of());
      }
      proxy.rule(Rule.of("GET", "/history\\?.*page-token", Fault.CLOSE_UNANSWERED, 1));
      List<String> log = refs.log(base).map(e -> e.getCommitMeta().getMessage()).limit(61).toList();
      assertThat(log).hasSize(61).startsWith("page 59", "page 58");
      assertThat(proxy.stats().faulted()).as("every rule met its request")
          .anyMatch(f -> f.startsWith("GET") && f.contains("page-token") && f.contains("closed unanswered"))
          .anyMatch(f -> f.startsWith("DELETE") && f.contains("answer lost"))
          .anyMatch(f -> f.startsWith("PUT") && f.contains("answer lost"))
          .anyMatch(f -> f.contains("answered 503"));
      refs.deleteBranch(base);
    }
  }

  /** A namespace made on {@code branch} straight on the stack's Nessie, not through the proxy. */
  private void putNamespace(String branch, String name) throws Exception {
    try (NessieApiV2 api = NessieClientBuilder.createClientBuilderFromSystemSettings()
        .withUri(stack.endpoints().nessieApi()).build(NessieApiV2.class)) {
      api.commitMultipleOperations().branch(api.getReference().refName(branch).get() instanceof Branch b ? b : null)
          .operation(Operation.Put.of(ContentKey.of(name), Namespace.of(name)))
          .commitMeta(CommitMeta.fromMessage("to merge")).commit();
    }
  }
}
