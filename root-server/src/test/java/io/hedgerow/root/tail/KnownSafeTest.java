package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
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

    @Test
    void keyedByTheParsedQuery() {
        knownSafe.markSafe(Fingerprints.of("european AND parliament"));
        assertThat(knownSafe.isKnownSafe(Fingerprints.of("parliament && european"))).as("a re-spelling").isTrue();
        assertThat(knownSafe.isKnownSafe(Fingerprints.of("+european +parliament"))).as("a re-spelling").isTrue();
        assertThat(knownSafe.isKnownSafe(Fingerprints.of("european"))).as("one of its terms").isFalse();
        assertThat(knownSafe.isKnownSafe(Fingerprints.of("european AND commission"))).as("sharing a term").isFalse();
        assertThat(knownSafe.isKnownSafe(Fingerprints.of("european OR parliament"))).as("other operators").isFalse();
    }

    @Test
    void byDefaultAShapeStaysSafeForAnHourFromItsLastCanariedRunHoweverOftenItIsChecked() {
        KnownSafe defaults = new KnownSafe(TailSettings.defaults(), ticker);
        QueryFingerprint query = Fingerprints.of("fisheries policy");
        defaults.markSafe(query);
        for (int minute = 1; minute < 60; minute++) {
            ticker.advance(Duration.ofMinutes(1));
            assertThat(defaults.isKnownSafe(query)).as("after %d minutes", minute).isTrue();
        }
        ticker.advance(Duration.ofMinutes(1));
        assertThat(defaults.isKnownSafe(query))
                .as("checks do not extend it: every shape is canaried again once an hour").isFalse();
    }

    @Test
    void byDefaultHoldsFarMoreShapesThanTheOldTenThousand() {
        KnownSafe defaults = new KnownSafe(TailSettings.defaults(), ticker);
        int shapes = 30_000;
        for (int i = 0; i < shapes; i++) {
            defaults.markSafe(Fingerprints.of("term" + i));
        }
        assertThat(defaults.size()).isEqualTo(shapes);
        assertThat(defaults.isKnownSafe(Fingerprints.of("term0"))).isTrue();
    }
}
