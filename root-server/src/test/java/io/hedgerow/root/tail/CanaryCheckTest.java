package io.hedgerow.root.tail;

import static io.hedgerow.root.tail.CanaryCheck.Verdict.DANGEROUS;
import static io.hedgerow.root.tail.CanaryCheck.Verdict.RESEND;
import static io.hedgerow.root.tail.CanaryCheck.Verdict.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CanaryCheckTest {

    @Test
    void aCanaryOvertakenPastItsTimeoutGetsASecondOpinionThenIsDangerous() {
        assertThat(CanaryCheck.decide(true, false, false, false)).isEqualTo(WAIT);
        assertThat(CanaryCheck.decide(true, false, false, true)).as("one leaf may be in distress").isEqualTo(RESEND);
        assertThat(CanaryCheck.decide(true, false, true, false)).isEqualTo(WAIT);
        assertThat(CanaryCheck.decide(true, false, true, true)).as("overtaken on a second leaf").isEqualTo(DANGEROUS);
    }

    @Test
    void aCanaryOnASilentLeafIsResentOnceAndSilenceNeverBlocklists() {
        assertThat(CanaryCheck.decide(false, true, false, false)).as("early check, hedged query").isEqualTo(RESEND);
        assertThat(CanaryCheck.decide(false, true, false, true)).isEqualTo(RESEND);
        assertThat(CanaryCheck.decide(false, true, true, false)).isEqualTo(WAIT);
        assertThat(CanaryCheck.decide(false, true, true, true)).as("an overloaded root looks the same").isEqualTo(WAIT);
    }

    @Test
    void aCanaryQueuedBehindOlderWorkWaitsForever() {
        // An overloaded leaf answers what was sent before the canary: never the query's fault.
        assertThat(CanaryCheck.decide(false, false, false, true)).isEqualTo(WAIT);
        assertThat(CanaryCheck.decide(false, false, true, true)).isEqualTo(WAIT);
    }
}
