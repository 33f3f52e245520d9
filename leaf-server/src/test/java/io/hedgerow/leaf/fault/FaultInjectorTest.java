package io.hedgerow.leaf.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The delay policy on a manual clock: which sub-requests it holds, for how long, and until when. */
class FaultInjectorTest {
    private static final long MS = 1_000_000L;

    private final ManualTicker ticker = new ManualTicker();
    private final FaultInjector injector = new FaultInjector(ticker, () -> {
        throw new AssertionError("these tests name their seeds");
    });

    @Test
    void delaysNothingUntilSomethingIsInjected() {
        for (int i = 0; i < 100; i++) {
            assertThat(injector.nextDelayNanos()).isZero();
        }
        assertThat(injector.current()).isEmpty();
        assertThat(injector.delaysInjected()).isZero();
    }

    @Test
    void delaysEverySubRequestWithProbabilityOneUntilTheDurationIsUp() {
        InjectedDelay delay = new InjectedDelay(50 * MS, 1.0, 1000 * MS, 9);
        assertThat(injector.inject(delay)).isEqualTo(delay);

        // t = 0 ms: injected; t = 999.999999 ms: still in effect.
        assertThat(injector.nextDelayNanos()).isEqualTo(50 * MS);
        ticker.advance(Duration.ofNanos(1000 * MS - 1));
        assertThat(injector.nextDelayNanos()).isEqualTo(50 * MS);
        assertThat(injector.current()).contains(delay);

        // t = 1000 ms: lapsed by itself, with nobody clearing it.
        ticker.advance(Duration.ofNanos(1));
        assertThat(injector.current()).isEmpty();
        assertThat(injector.nextDelayNanos()).isZero();
        assertThat(injector.delaysInjected()).isEqualTo(2);
    }

    @Test
    void flipsTheSameCoinsForTheSameSeed() {
        long seed = 20261122L;
        System.out.println("FaultInjectorTest coin seed " + seed);
        injector.inject(new InjectedDelay(7 * MS, 0.3, 60_000 * MS, seed));

        Random reference = new Random(seed);
        int expectedDelays = 0;
        for (int i = 0; i < 1000; i++) {
            boolean delayed = reference.nextDouble() < 0.3;
            expectedDelays += delayed ? 1 : 0;
            assertThat(injector.nextDelayNanos()).as("decision %d", i).isEqualTo(delayed ? 7 * MS : 0);
        }
        assertThat(injector.delaysInjected()).isEqualTo(expectedDelays);
        assertThat(expectedDelays).as("about 30%% of 1000").isBetween(240, 360);
    }

    @Test
    void neverDelaysWithProbabilityZero() {
        injector.inject(new InjectedDelay(7 * MS, 0.0, 60_000 * MS, 3));
        for (int i = 0; i < 1000; i++) {
            assertThat(injector.nextDelayNanos()).isZero();
        }
        assertThat(injector.current()).isPresent();
    }

    @Test
    void choosesANonZeroSeedWhenTheInjectionNamesNone() {
        AtomicInteger asked = new AtomicInteger();
        long[] seeds = {0, 77};
        FaultInjector choosing = new FaultInjector(ticker, () -> seeds[asked.getAndIncrement()]);

        InjectedDelay applied = choosing.inject(InjectedDelay.of(Duration.ofMillis(5), 0.5, Duration.ofSeconds(1)));

        assertThat(applied.seed()).as("0 means 'choose', so it is never the seed in use").isEqualTo(77);
        assertThat(asked).hasValue(2);
        Random reference = new Random(77);
        for (int i = 0; i < 100; i++) {
            assertThat(choosing.nextDelayNanos()).isEqualTo(reference.nextDouble() < 0.5 ? 5 * MS : 0);
        }
    }

    @Test
    void aNewInjectionReplacesTheOldOneAndItsExpiry() {
        injector.inject(new InjectedDelay(50 * MS, 1.0, 100 * MS, 1));
        ticker.advanceMillis(90);
        InjectedDelay second = new InjectedDelay(20 * MS, 1.0, 100 * MS, 2);
        injector.inject(second);

        ticker.advanceMillis(50); // 140 ms after the first, 50 ms after the second
        assertThat(injector.nextDelayNanos()).isEqualTo(20 * MS);
        assertThat(injector.current()).contains(second);
        ticker.advanceMillis(50);
        assertThat(injector.current()).isEmpty();
    }

    @Test
    void clearsOnAZeroDelayAZeroDurationOrClear() {
        for (InjectedDelay clearing : new InjectedDelay[] {
                new InjectedDelay(0, 1.0, 100 * MS, 1), new InjectedDelay(50 * MS, 1.0, 0, 1), InjectedDelay.NONE}) {
            injector.inject(new InjectedDelay(50 * MS, 1.0, 100 * MS, 1));
            assertThat(injector.inject(clearing)).isEqualTo(InjectedDelay.NONE);
            assertThat(injector.current()).isEmpty();
            assertThat(injector.nextDelayNanos()).isZero();
        }
        injector.inject(new InjectedDelay(50 * MS, 1.0, 100 * MS, 1));
        injector.clear();
        assertThat(injector.nextDelayNanos()).isZero();
    }

    @Test
    void refusesUnboundedOrMeaninglessDelaysNamingTheValue() {
        assertThatThrownBy(() -> new InjectedDelay(-1, 1.0, MS, 0))
                .hasMessageContaining("delayNanos: -1 (expected: 0..60000000000, at most 1m)");
        assertThatThrownBy(() -> new InjectedDelay(60_001 * MS, 1.0, MS, 0)).hasMessageContaining("delayNanos: 60001000000");
        assertThatThrownBy(() -> new InjectedDelay(MS, 1.5, MS, 0)).hasMessageContaining("probability: 1.5 (expected: 0..1)");
        assertThatThrownBy(() -> new InjectedDelay(MS, Double.NaN, MS, 0)).hasMessageContaining("probability: NaN");
        assertThatThrownBy(() -> new InjectedDelay(MS, 0.5, Duration.ofHours(2).toNanos(), 0))
                .hasMessageContaining("durationNanos: 7200000000000 (expected: 0..3600000000000, at most 1h)");
    }

    @Test
    void describesItselfInHumanUnits() {
        assertThat(new InjectedDelay(50 * MS, 0.05, 30_000 * MS, 42).describe())
                .isEqualTo("50ms with probability 0.05 for 30s (seed 42)");
        assertThat(InjectedDelay.NONE.describe()).isEqualTo("no delay");
    }
}
