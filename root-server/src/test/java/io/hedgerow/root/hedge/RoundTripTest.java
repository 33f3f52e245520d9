package io.hedgerow.root.hedge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RoundTripTest {
    private static final long US = 1_000L;
    private static final long MS = 1_000_000L;

    @Test
    void networkTimeIsTheRoundTripMinusTheLeafsTime() {
        RoundTrip roundTrip = new RoundTrip(3);
        assertThat(roundTrip.leaves()).isEqualTo(3);
        assertThat(roundTrip.networkNanos(0)).isEqualTo(RoundTrip.UNKNOWN);

        roundTrip.record(0, 2_300 * US, 2_000 * US); // first sample: taken as is
        assertThat(roundTrip.networkNanos(0)).isEqualTo(300 * US);
        assertThat(roundTrip.networkNanos(1)).isEqualTo(RoundTrip.UNKNOWN);
    }

    @Test
    void aLeafTimeLongerThanTheRoundTripCountsAsNoNetworkTime() {
        RoundTrip roundTrip = new RoundTrip(1);
        roundTrip.record(0, 1 * MS, 2 * MS);
        assertThat(roundTrip.networkNanos(0)).isZero();
    }

    @Test
    void eachSampleMovesTheEstimateByAnEighth() {
        RoundTrip roundTrip = new RoundTrip(2);
        roundTrip.record(1, 100 * US, 0);
        roundTrip.record(1, 900 * US, 0);
        assertThat(roundTrip.networkNanos(1)).isEqualTo(200 * US);
        roundTrip.record(1, 200 * US + 800 * US, 800 * US); // network 200 us: no change
        assertThat(roundTrip.networkNanos(1)).isEqualTo(200 * US);
    }

    @Test
    void anOutlierFadesAndALastingChangeIsFollowed() {
        RoundTrip roundTrip = new RoundTrip(1);
        roundTrip.record(0, 100 * US, 0);
        roundTrip.record(0, 50 * MS, 0); // one pause on the root's event loop
        assertThat(roundTrip.networkNanos(0)).isBetween(6 * MS, 7 * MS);
        for (int i = 0; i < 60; i++) {
            roundTrip.record(0, 100 * US, 0);
        }
        assertThat(roundTrip.networkNanos(0)).isLessThan(110 * US);
        for (int i = 0; i < 60; i++) {
            roundTrip.record(0, 400 * US, 0);
        }
        assertThat(roundTrip.networkNanos(0)).isBetween(390 * US, 400 * US);
    }

    @Test
    void refusesLeavesOutOfRange() {
        RoundTrip roundTrip = new RoundTrip(2);
        assertThatThrownBy(() -> roundTrip.record(2, 1, 0))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("leaf: 2 (expected: >= 0 and < 2)");
        assertThatThrownBy(() -> roundTrip.networkNanos(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new RoundTrip(0)).hasMessage("leaves: 0 (expected: >= 1)");
    }

    @Test
    void tiedDelayIsTwiceTheLongerNetworkTimeCapped() {
        HedgeSettings auto = HedgeSettings.defaults(); // cap 1 ms
        assertThat(RoundTrip.tiedDelayNanos(auto, 100 * US, 300 * US)).isEqualTo(600 * US);
        assertThat(RoundTrip.tiedDelayNanos(auto, 300 * US, 100 * US)).isEqualTo(600 * US);
        assertThat(RoundTrip.tiedDelayNanos(auto, 0, 0)).isZero();
        assertThat(RoundTrip.tiedDelayNanos(auto, 500 * US, 0)).isEqualTo(1 * MS);
        assertThat(RoundTrip.tiedDelayNanos(auto, 501 * US, 0)).isEqualTo(1 * MS);
        assertThat(RoundTrip.tiedDelayNanos(auto, Long.MAX_VALUE, 0)).isEqualTo(1 * MS);
        assertThat(RoundTrip.tiedDelayNanos(auto.withTiedMaxDelay(Duration.ofMillis(5)), 2 * MS, 1 * MS))
                .isEqualTo(4 * MS);
    }

    @Test
    void tiedDelayIsTheCapWhileALeafIsUnknown() {
        HedgeSettings auto = HedgeSettings.defaults();
        assertThat(RoundTrip.tiedDelayNanos(auto, RoundTrip.UNKNOWN, 100 * US)).isEqualTo(1 * MS);
        assertThat(RoundTrip.tiedDelayNanos(auto, 100 * US, RoundTrip.UNKNOWN)).isEqualTo(1 * MS);
    }

    @Test
    void aFixedTiedDelayWinsOverTheMeasurement() {
        HedgeSettings fixed = HedgeSettings.defaults().withTiedDelay(Duration.ofMillis(3));
        assertThat(RoundTrip.tiedDelayNanos(fixed, 100 * US, 100 * US)).isEqualTo(3 * MS);
        assertThat(RoundTrip.tiedDelayNanos(fixed, RoundTrip.UNKNOWN, RoundTrip.UNKNOWN)).isEqualTo(3 * MS);
        assertThat(RoundTrip.tiedDelayNanos(fixed.withTiedDelay(Duration.ZERO), 100 * US, 100 * US)).isZero();
    }
}
