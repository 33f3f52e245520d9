package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.loadgen.durability.DocumentClient.Answer;
import io.hedgerow.loadgen.durability.DocumentClient.Presence;
import io.hedgerow.loadgen.durability.DocumentClient.Route;
import io.hedgerow.loadgen.durability.Op.Kind;
import io.hedgerow.loadgen.durability.Op.Type;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A write over two scripted roots: which root each client asks, when it fails over, and what the write
 * then counts as; and that the set checker, fed those outcomes, stays sound.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class FailoverClientTest {
    private static final Answer OK = new Answer(Type.OK, "HTTP 201");
    private static final Answer NOT_FOUND = new Answer(Type.FAIL, "HTTP 404");
    private static final Answer REFUSED_CONNECTION = new Answer(Type.FAIL, "connection refused", Route.NOT_SENT);
    private static final Answer TIMED_OUT = new Answer(Type.INFO, "HttpTimeoutException: request timed out", Route.NO_ANSWER);
    private static final Answer UNAVAILABLE = new Answer(Type.INFO, "HTTP 503", Route.REFUSED);

    private final ManualTicker ticker = new ManualTicker();

    /** A root that answers from a script and records the ids it was asked about. */
    private static final class ScriptedRoot implements Documents {
        final Deque<Answer> answers = new ArrayDeque<>();
        final List<String> asked = new ArrayList<>();
        Presence presence = Presence.UNREADABLE;

        ScriptedRoot answering(Answer... script) {
            answers.addAll(List.of(script));
            return this;
        }

        @Override
        public Answer add(String id, String body) {
            asked.add("add " + id);
            return answers.remove();
        }

        @Override
        public Answer delete(String id) {
            asked.add("delete " + id);
            return answers.remove();
        }

        @Override
        public Presence read(String id) {
            asked.add("read " + id);
            return presence;
        }
    }

    private FailoverClient over(ScriptedRoot... roots) {
        return new FailoverClient(List.of(roots), new RootChoice(roots.length, ticker, Duration.ofSeconds(10)));
    }

    @Test
    void eachClientWritesToItsOwnRootFirst() {
        ScriptedRoot zero = new ScriptedRoot().answering(OK);
        ScriptedRoot one = new ScriptedRoot().answering(OK);
        FailoverClient client = over(zero, one);

        assertThat(client.add(0, "a", "{}").type()).isEqualTo(Type.OK);
        assertThat(client.add(1, "b", "{}").type()).isEqualTo(Type.OK);

        assertThat(zero.asked).containsExactly("add a");
        assertThat(one.asked).containsExactly("add b");
    }

    @Test
    void aWriteNeverSentToTheFirstRootTakesTheNextRootsAnswer() {
        ScriptedRoot zero = new ScriptedRoot().answering(REFUSED_CONNECTION);
        ScriptedRoot one = new ScriptedRoot().answering(OK, NOT_FOUND);
        FailoverClient client = over(zero, one);

        Answer added = client.add(0, "a", "{}");

        assertThat(added.type()).isEqualTo(Type.OK);
        assertThat(added.detail()).contains("root 0: connection refused").contains("root 1: HTTP 201");
        assertThat(one.asked).containsExactly("add a");
        // Root 0 failed just now: the next write goes to root 1 first, and its 404 is a definite refusal.
        assertThat(client.delete(0, "a").type()).isEqualTo(Type.FAIL);
        assertThat(zero.asked).containsExactly("add a");
    }

    @Test
    void aWriteThatFailedOverAfterNoAnswerIsIndeterminateEvenWhenTheNextRootAcknowledgesIt() {
        ScriptedRoot zero = new ScriptedRoot().answering(TIMED_OUT, UNAVAILABLE);
        ScriptedRoot one = new ScriptedRoot().answering(OK, NOT_FOUND);
        FailoverClient client = over(zero, one);

        Answer added = client.add(0, "a", "{}");
        ticker.advance(Duration.ofSeconds(10)); // root 0 is tried first again
        Answer deleted = client.delete(0, "b");

        assertThat(added.type()).isEqualTo(Type.INFO);
        assertThat(added.detail()).startsWith("indeterminate").contains("root 1: HTTP 201");
        assertThat(deleted.type()).as("a 404 after a 503 elsewhere: the 503'd delete may still apply").isEqualTo(Type.INFO);
        assertThat(zero.asked).containsExactly("add a", "delete b");
        assertThat(one.asked).containsExactly("add a", "delete b");
    }

    @Test
    void aFinalAnswerFromTheFirstRootIsNeverFailedOver() {
        ScriptedRoot zero = new ScriptedRoot().answering(NOT_FOUND, new Answer(Type.INFO, "HTTP 500"));
        ScriptedRoot one = new ScriptedRoot();
        FailoverClient client = over(zero, one);

        assertThat(client.delete(0, "a").type()).isEqualTo(Type.FAIL);
        assertThat(client.add(0, "b", "{}").type()).isEqualTo(Type.INFO);
        assertThat(one.asked).isEmpty();
    }

    @Test
    void whenNoRootTookTheConnectionTheWriteIsRefused() {
        FailoverClient client = over(new ScriptedRoot().answering(REFUSED_CONNECTION),
                new ScriptedRoot().answering(REFUSED_CONNECTION));

        assertThat(client.add(1, "a", "{}").type()).isEqualTo(Type.FAIL);
    }

    @Test
    void whenTheLastRootGotNoConnectionButAnEarlierOneNoAnswerTheWriteIsIndeterminate() {
        FailoverClient client = over(new ScriptedRoot().answering(TIMED_OUT), new ScriptedRoot().answering(REFUSED_CONNECTION));

        assertThat(client.add(0, "a", "{}").type()).isEqualTo(Type.INFO);
    }

    @Test
    void readsTakeTheFirstRootThatCanTell() {
        ScriptedRoot zero = new ScriptedRoot();
        ScriptedRoot one = new ScriptedRoot();
        one.presence = Presence.PRESENT;

        assertThat(over(zero, one).read(0, "a")).isEqualTo(Presence.PRESENT);
        assertThat(zero.asked).containsExactly("read a");
        assertThat(over(new ScriptedRoot(), new ScriptedRoot()).read(0, "a")).isEqualTo(Presence.UNREADABLE);
    }

    /**
     * The soundness the recording keeps: root 0 takes the delete of an acknowledged id, applies it and
     * gives no answer (paused after it sent the write on); root 1, asked next, answers 404 (nothing left
     * to delete). Taken at root 1's word the delete was refused, so the id must be present, and the
     * checker would report it lost although the cluster did nothing wrong. As indeterminate it is not.
     */
    @Test
    void theCheckerCountsAFailedOverDeleteNeitherAcknowledgedNorRefused() {
        FailoverClient client = over(new ScriptedRoot().answering(OK, TIMED_OUT), new ScriptedRoot().answering(NOT_FOUND));
        Answer added = client.add(0, "a", "{}");
        Answer deleted = client.delete(0, "a");
        History history = History.of(List.of(
                Op.invoke(0, Kind.ADD, "a", 0), Op.complete(0, added.type(), Kind.ADD, "a", 1, added.detail()),
                Op.invoke(0, Kind.DELETE, "a", 2), Op.complete(0, deleted.type(), Kind.DELETE, "a", 3, deleted.detail())));

        SetChecker.Verdict verdict = SetChecker.check(history, Map.of("a", Presence.ABSENT), TermLog.none());

        assertThat(deleted.type()).isEqualTo(Type.INFO);
        assertThat(verdict.lost()).isEmpty();
        assertThat(verdict.fail()).isZero();
        assertThat(verdict.info()).isEqualTo(1);
        assertThat(verdict.valid()).isTrue();
    }
}
