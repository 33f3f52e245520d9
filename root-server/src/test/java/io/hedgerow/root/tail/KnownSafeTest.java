package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class KnownSafeTest {
    private final ManualTicker ticker = new ManualTicker();
    private final KnownSafe knownSafe = new KnownSafe(
            TailSettings.defaults().withKnownSafe(Duration.ofMinutes(1), 100), ticker);

    @Test
    void aMarkedQueryIsSafeForTheTtlFromItsLastMark() {
        QueryFingerprint query = Fingerprints.of("european parliament");
        assertThat(knownSafe.isKnownSafe(query)).isFalse();
        knownSafe.markSafe(query);
        assertThat(knownSafe.isKnownSafe(Fingerprints.of(" european  parliament"))).isTrue();

        ticker.advance(Duration.ofSeconds(50));
        knownSafe.markSafe(query);
        ticker.advance(Duration.ofSeconds(59));
        assertThat(knownSafe.isKnownSafe(query)).isTrue();
        ticker.advance(Duration.ofSeconds(1));
        assertThat(knownSafe.isKnownSafe(query)).isFalse();
        assertThat(knownSafe.size()).isZero();
    }

    @Test
    void forgetsOnRequest() {
        QueryFingerprint query = Fingerprints.of("vote");
        knownSafe.markSafe(query);
        knownSafe.forget(query);
        assertThat(knownSafe.isKnownSafe(query)).isFalse();
    }

    @Test
    void holdsNoMoreThanItsBound() {
        KnownSafe small = new KnownSafe(TailSettings.defaults().withKnownSafe(Duration.ofMinutes(1), 5), ticker);
        for (int i = 0; i < 50; i++) {
            small.markSafe(Fingerprints.of("q" + i));
        }
        assertThat(small.size()).isLessThanOrEqualTo(5);
    }
}
