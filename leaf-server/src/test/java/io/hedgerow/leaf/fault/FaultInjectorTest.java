package io.hedgerow.leaf.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The delay and stall policy on a manual clock: which sub-requests it holds, for how long, and until when. */
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
        assertThat(injector.currentDelay()).isEmpty();
        assertThat(injector.stallRemainingNanos()).isZero();
        assertThat(injector.currentStall()).isEmpty();
    }

    @Test
    void delaysEverySubRequestWithProbabilityOneUntilTheDurationIsUp() {
        InjectedDelay delay = new InjectedDelay(50 * MS, 1.0, 1000 * MS, 9);
        assertThat(injector.inject(delay)).isEqualTo(delay);

        // t = 0 ms: injected; t = 999.999999 ms: still in effect.
        assertThat(injector.nextDelayNanos()).isEqualTo(50 * MS);
        ticker.advance(Duration.ofNanos(1000 * MS - 1));
        assertThat(injector.nextDelayNanos()).isEqualTo(50 * MS);
        assertThat(injector.currentDelay()).contains(delay);

        // t = 1000 ms: lapsed by itself, with nobody clearing it.
        ticker.advance(Duration.ofNanos(1));
        assertThat(injector.currentDelay()).isEmpty();
        assertThat(injector.nextDelayNanos()).isZero();
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
        assertThat(expectedDelays).as("about 30%% of 1000").isBetween(240, 360);
    }

    @Test
    void neverDelaysWithProbabilityZero() {
        injector.inject(new InjectedDelay(7 * MS, 0.0, 60_000 * MS, 3));
        for (int i = 0; i < 1000; i++) {
            assertThat(injector.nextDelayNanos()).isZero();
        }
        assertThat(injector.currentDelay()).isPresent();
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
        assertThat(injector.currentDelay()).contains(second);
        ticker.advanceMillis(50);
        assertThat(injector.currentDelay()).isEmpty();
    }

    @Test
    void clearsOnAZeroDelayAZeroDurationOrClear() {
        for (InjectedDelay clearing : new InjectedDelay[] {
                new InjectedDelay(0, 1.0, 100 * MS, 1), new InjectedDelay(50 * MS, 1.0, 0, 1), InjectedDelay.NONE}) {
            injector.inject(new InjectedDelay(50 * MS, 1.0, 100 * MS, 1));
            assertThat(injector.inject(clearing)).isEqualTo(InjectedDelay.NONE);
            assertThat(injector.currentDelay()).isEmpty();
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

    // ------------------------------------------------------------------ exponential delays

    @Test
    void drawsExponentialDelaysWithTheMeanFromTheSeedAfterEachCoin() {
        long seed = 4242L;
        System.out.println("FaultInjectorTest exponential seed " + seed);
        InjectedDelay delay = new InjectedDelay(20 * MS, 0.5, 60_000 * MS, seed, InjectedDelay.Distribution.EXPONENTIAL);
        assertThat(injector.inject(delay)).isEqualTo(delay);

        // The same Random flips the coin and, when it comes up, draws the delay.
        Random reference = new Random(seed);
        long sumNanos = 0;
        int delayed = 0;
        for (int i = 0; i < 4000; i++) {
            long expected = 0;
            if (reference.nextDouble() < 0.5) {
                expected = Math.max(1, Math.round(-20 * MS * Math.log1p(-reference.nextDouble())));
                sumNanos += expected;
                delayed++;
            }
            assertThat(injector.nextDelayNanos()).as("decision %d", i).isEqualTo(expected);
        }
        assertThat(sumNanos / delayed).as("the mean of %d draws, near 20 ms", delayed).isBetween(18 * MS, 22 * MS);
    }

    @Test
    void capsExponentialDrawsAtTheMaximumDelayAndNeverDrawsZero() {
        long maxNanos = InjectedDelay.MAX_DELAY.toNanos();
        assertThat(FaultInjector.exponential(30_000 * MS, 0.99)).as("30 s x ln(100) = 138 s").isEqualTo(maxNanos);
        assertThat(FaultInjector.exponential(30_000 * MS, 0.5)).isEqualTo(Math.round(30_000 * MS * Math.log(2)));
        assertThat(FaultInjector.exponential(20 * MS, 0.0)).as("a delayed request is held at all").isEqualTo(1);
    }

    @Test
    void describesAnExponentialDelayAndOneUntilExit() {
        assertThat(new InjectedDelay(50 * MS, 0.01, InjectedDelay.UNTIL_EXIT, 3, InjectedDelay.Distribution.EXPONENTIAL)
                .describe()).isEqualTo("an exponential draw (mean 50ms, at most 1m) with probability 0.01 until the leaf exits (seed 3)");
    }

    @Test
    void aDelayUntilExitNeverLapses() {
        injector.inject(new InjectedDelay(5 * MS, 1.0, InjectedDelay.UNTIL_EXIT, 8));
        ticker.advance(Duration.ofDays(400));
        assertThat(injector.nextDelayNanos()).isEqualTo(5 * MS);
        assertThat(injector.currentDelay()).isPresent();
    }

    // ------------------------------------------------------------------ stalls

    @Test
    void stallsForTheStallAtTheStartOfEveryPeriodCountedFromTheInjection() {
        ticker.advanceMillis(12_345); // the phase starts at the injection, not at any round time
        InjectedStall stall = InjectedStall.of(Duration.ofMillis(150), Duration.ofSeconds(1), Duration.ofSeconds(10));
        assertThat(injector.inject(stall)).isEqualTo(stall);

        // "at t = x ms after the injection, the stall lasts y ms more"
        assertThat(injector.stallRemainingNanos()).as("t=0: the first stall starts at once").isEqualTo(150 * MS);
        ticker.advanceMillis(100);
        assertThat(injector.stallRemainingNanos()).as("t=100").isEqualTo(50 * MS);
        ticker.advance(Duration.ofNanos(50 * MS - 1));
        assertThat(injector.stallRemainingNanos()).as("t=150 less 1 ns").isEqualTo(1);
        ticker.advance(Duration.ofNanos(1));
        assertThat(injector.stallRemainingNanos()).as("t=150: running").isZero();
        ticker.advanceMillis(849);
        assertThat(injector.stallRemainingNanos()).as("t=999").isZero();
        ticker.advanceMillis(1);
        assertThat(injector.stallRemainingNanos()).as("t=1000: the second stall").isEqualTo(150 * MS);
        ticker.advanceMillis(1_100);
        assertThat(injector.stallRemainingNanos()).as("t=2100").isEqualTo(50 * MS);
        assertThat(injector.currentStall()).contains(stall);
    }

    @Test
    void aStallEndsWhenItsInjectionLapses() {
        injector.inject(InjectedStall.of(Duration.ofMillis(150), Duration.ofSeconds(1), Duration.ofMillis(1_050)));

        ticker.advanceMillis(1_000);
        assertThat(injector.stallRemainingNanos()).as("cut to what is left of the injection").isEqualTo(50 * MS);
        ticker.advanceMillis(50);
        assertThat(injector.stallRemainingNanos()).isZero();
        assertThat(injector.currentStall()).isEmpty();
        ticker.advanceMillis(950);
        assertThat(injector.stallRemainingNanos()).as("t=2000: no more stalls").isZero();
    }

    @Test
    void aStallUntilExitNeverLapses() {
        injector.inject(new InjectedStall(150 * MS, 1000 * MS, InjectedDelay.UNTIL_EXIT));
        ticker.advance(Duration.ofDays(400).plusMillis(10));
        assertThat(injector.stallRemainingNanos()).isEqualTo(140 * MS);
        assertThat(injector.currentStall()).isPresent();
    }

    @Test
    void aDelayAndAStallAreIndependent() {
        InjectedDelay delay = new InjectedDelay(50 * MS, 1.0, 60_000 * MS, 1);
        InjectedStall stall = InjectedStall.of(Duration.ofMillis(150), Duration.ofSeconds(1), Duration.ofMinutes(1));
        injector.inject(delay);
        injector.inject(stall);
        assertThat(injector.currentDelay()).contains(delay);
        assertThat(injector.currentStall()).contains(stall);

        assertThat(injector.inject(InjectedStall.NONE)).isEqualTo(InjectedStall.NONE);
        assertThat(injector.currentStall()).isEmpty();
        assertThat(injector.nextDelayNanos()).as("the delay stays").isEqualTo(50 * MS);

        injector.inject(stall);
        InjectedDelay other = new InjectedDelay(7 * MS, 1.0, 60_000 * MS, 2);
        injector.inject(other);
        assertThat(injector.currentDelay()).contains(other);
        assertThat(injector.stallRemainingNanos()).as("the stall stays").isEqualTo(150 * MS);

        injector.clear();
        assertThat(injector.currentDelay()).isEmpty();
        assertThat(injector.currentStall()).isEmpty();
    }

    @Test
    void aNewStallRestartsThePhase() {
        injector.inject(InjectedStall.of(Duration.ofMillis(150), Duration.ofSeconds(1), Duration.ofMinutes(1)));
        ticker.advanceMillis(500);
        assertThat(injector.stallRemainingNanos()).isZero();
        injector.inject(InjectedStall.of(Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofMinutes(1)));
        assertThat(injector.stallRemainingNanos()).isEqualTo(20 * MS);
        ticker.advanceMillis(120);
        assertThat(injector.stallRemainingNanos()).isZero();
        ticker.advanceMillis(85);
        assertThat(injector.stallRemainingNanos()).isEqualTo(15 * MS);
    }

    @Test
    void refusesMeaninglessStallsNamingTheValue() {
        assertThatThrownBy(() -> new InjectedStall(150 * MS, 150 * MS, 1000 * MS))
                .hasMessage("periodNanos: 150000000 (expected: > stallNanos 150000000, or the leaf would never run)");
        assertThatThrownBy(() -> new InjectedStall(-1, 1000 * MS, 1000 * MS)).hasMessageContaining("stallNanos: -1 (expected: 0..");
        assertThatThrownBy(() -> new InjectedStall(61_000 * MS, 120_000 * MS, 1000 * MS))
                .hasMessageContaining("stallNanos: 61000000000 (expected: 0..60000000000, at most 1m)");
        assertThatThrownBy(() -> new InjectedStall(MS, Duration.ofHours(2).toNanos(), MS))
                .hasMessageContaining("periodNanos: 7200000000000 (expected: 0..3600000000000, at most 1h)");
        assertThatThrownBy(() -> new InjectedStall(MS, 2 * MS, Duration.ofHours(2).toNanos()))
                .hasMessageContaining("durationNanos: 7200000000000");
        assertThat(InjectedStall.NONE.clears()).isTrue();
        assertThat(new InjectedStall(0, 0, 1000 * MS).clears()).isTrue();
    }

    @Test
    void describesAStall() {
        assertThat(InjectedStall.of(Duration.ofMillis(150), Duration.ofSeconds(1), Duration.ofMinutes(1)).describe())
                .isEqualTo("150ms every 1s for 1m");
        assertThat(new InjectedStall(150 * MS, 1000 * MS, InjectedDelay.UNTIL_EXIT).describe())
                .isEqualTo("150ms every 1s until the leaf exits");
        assertThat(InjectedStall.NONE.describe()).isEqualTo("no stall");
    }
}
