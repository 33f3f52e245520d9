package io.hedgerow.root.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.root.transport.LinkLiveness.Verdict;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A connection's verdict on its leaf, scripted on a virtual clock (checked every 500 ms, as the connection does). */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LinkLivenessTest {
    private static final long MS = 1_000_000L;

    private final LinkLiveness liveness = new LinkLiveness(Duration.ofSeconds(1), Duration.ofSeconds(6), 0);

    @Test
    void aBusyLinkIsNeverPinged() {
        for (long now = 0; now <= 60_000 * MS; now += 500 * MS) {
            liveness.heard(now - 100 * MS);
            assertThat(liveness.check(now)).isEqualTo(Verdict.QUIET);
        }
    }

    @Test
    void aQuietLeafIsPingedOnceASecondAndStaysWhileItAnswers() {
        assertThat(liveness.check(500 * MS)).isEqualTo(Verdict.QUIET);
        assertThat(liveness.check(1_000 * MS)).isEqualTo(Verdict.PING);
        assertThat(liveness.check(1_500 * MS)).isEqualTo(Verdict.QUIET); // asked 500 ms ago
        liveness.heard(1_500 * MS); // the pong
        assertThat(liveness.check(2_000 * MS)).isEqualTo(Verdict.QUIET);
        assertThat(liveness.check(2_500 * MS)).isEqualTo(Verdict.PING);
    }

    @Test
    void aLeafSilentForSixSecondsIsGoneWhateverWasSent() {
        Verdict verdict = Verdict.QUIET;
        int pings = 0;
        long now = 0;
        while (verdict != Verdict.SILENT) {
            now += 500 * MS;
            verdict = liveness.check(now);
            pings += verdict == Verdict.PING ? 1 : 0;
        }
        assertThat(now).isEqualTo(6_000 * MS);
        assertThat(pings).isEqualTo(5);
        assertThat(liveness.silence(now)).isEqualTo(Duration.ofSeconds(6));
    }

    @Test
    void aTwoSecondPauseIsNotSilence() {
        liveness.heard(10_000 * MS);
        for (long now = 10_500 * MS; now <= 12_000 * MS; now += 500 * MS) {
            assertThat(liveness.check(now)).isNotEqualTo(Verdict.SILENT);
        }
        liveness.heard(12_100 * MS); // the process resumes and answers
        assertThat(liveness.check(12_500 * MS)).isEqualTo(Verdict.QUIET);
    }

    @Test
    void refusesNonsense() {
        assertThatThrownBy(() -> new LinkLiveness(Duration.ZERO, Duration.ofSeconds(6), 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LinkLiveness(Duration.ofSeconds(6), Duration.ofSeconds(6), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
