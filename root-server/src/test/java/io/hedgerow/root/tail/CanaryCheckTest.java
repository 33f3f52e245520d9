package io.hedgerow.root.tail;

import static io.hedgerow.root.tail.CanaryCheck.Verdict.DANGEROUS;
import static io.hedgerow.root.tail.CanaryCheck.Verdict.SECOND_OPINION;
import static io.hedgerow.root.tail.CanaryCheck.Verdict.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CanaryCheckTest {

    @Test
    void aCanaryOvertakenPastItsTimeoutGetsASecondOpinionAndIsDangerousOnlyOnTwoLeaves() {
        assertThat(CanaryCheck.check(1, 0, false)).as("not past its timeout, or queued").isEqualTo(WAIT);
        assertThat(CanaryCheck.check(1, 1, false)).as("one leaf may be in distress").isEqualTo(SECOND_OPINION);
        assertThat(CanaryCheck.check(2, 1, false)).as("the second opinion is out").isEqualTo(WAIT);
        assertThat(CanaryCheck.check(2, 2, false)).as("overtaken on a second leaf").isEqualTo(DANGEROUS);
    }

    @Test
    void aCanaryOnASilentLeafGetsASecondOpinionAndSilenceNeverBlocklists() {
        assertThat(CanaryCheck.check(1, 0, true)).isEqualTo(SECOND_OPINION);
        assertThat(CanaryCheck.check(2, 0, true)).as("an overloaded root looks the same").isEqualTo(WAIT);
    }

    @Test
    void aCanaryQueuedBehindOlderWorkWaitsForever() {
        // An overloaded leaf answers what was sent before the canary: never the query's fault.
        assertThat(CanaryCheck.check(1, 0, false)).isEqualTo(WAIT);
        assertThat(CanaryCheck.check(2, 0, false)).isEqualTo(WAIT);
    }

    @Test
    void aLostConnectionIsEvidenceOnlyOnTheSecondLeaf() {
        assertThat(CanaryCheck.lost(1, 0)).as("a crash, a restart or a deploy").isEqualTo(SECOND_OPINION);
        assertThat(CanaryCheck.lost(1, 1)).as("another copy is out on another leaf").isEqualTo(WAIT);
        assertThat(CanaryCheck.lost(2, 0)).isEqualTo(DANGEROUS);
        assertThat(CanaryCheck.lost(2, 1)).isEqualTo(DANGEROUS);
    }
}
