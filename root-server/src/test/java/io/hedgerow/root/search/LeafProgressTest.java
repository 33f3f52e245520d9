package io.hedgerow.root.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Priority;
import org.junit.jupiter.api.Test;

class LeafProgressTest {
    private final LeafProgress progress = new LeafProgress();

    @Test
    void knowsNothingBeforeTheFirstAnswer() {
        assertThat(progress.doneSince(Long.MIN_VALUE + 1)).isFalse();
        assertThat(progress.overtaken(0, Priority.SHADOW)).isFalse();
    }

    @Test
    void workSentLaterOfTheSameOrALowerClassOvertakes() {
        progress.done(150, 120, Priority.INTERACTIVE);
        assertThat(progress.doneSince(100)).isTrue();
        assertThat(progress.doneSince(150)).isFalse();
        assertThat(progress.overtaken(100, Priority.INTERACTIVE)).as("sent later, done first").isTrue();
        assertThat(progress.overtaken(120, Priority.INTERACTIVE)).as("the same request").isFalse();
        assertThat(progress.overtaken(130, Priority.INTERACTIVE)).as("sent earlier").isFalse();
        // A batch canary is served after interactive work: interactive work done says nothing of it.
        assertThat(progress.overtaken(100, Priority.BATCH)).isFalse();
        progress.done(160, 125, Priority.SHADOW);
        assertThat(progress.overtaken(100, Priority.BATCH)).as("a lower class done first").isTrue();
    }

    @Test
    void keepsTheNewestSendTimeWhateverTheOrderOfAnswers() {
        progress.done(200, 180, Priority.BACKUP);
        progress.done(210, 170, Priority.BACKUP);
        assertThat(progress.overtaken(175, Priority.BACKUP)).isTrue();
        assertThat(progress.overtaken(180, Priority.BACKUP)).isFalse();
    }
}
