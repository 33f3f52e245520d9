package io.hedgerow.leaf.fault;

import io.hedgerow.common.time.Ticker;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Decides, for each sub-request a leaf's worker takes, whether to delay it and by how much: the
 * {@link InjectedDelay} in effect, a coin flip with its probability, and its expiry on the
 * injected {@link Ticker}. Pure policy: it never sleeps and has no clock or thread of its own;
 * the worker applies the decision (see {@code LeafTask}).
 *
 * <p>Expiry is checked on every decision rather than by a timer, so an injection lapses exactly
 * {@code durationNanos} after it was made even if nothing ever clears it, and a test drives it
 * with a {@code ManualTicker}.
 *
 * <p><b>Assumptions and guarantees.</b> Every method is thread-safe. {@link #nextDelayNanos()}
 * runs on every worker for every sub-request; with nothing injected it costs one volatile read.
 * Each injection flips its coins with its own {@link Random} seeded from {@link InjectedDelay#seed()}
 * (or from {@code seeds} when that is 0), so for one seed the n-th decision is always the same; which
 * sub-request gets the n-th decision depends on the order in which workers ask.
 */
public final class FaultInjector {
    /** An injection in effect, until {@code untilNanos} on the ticker. */
    private record Active(InjectedDelay delay, long untilNanos, Random coin) {
    }

    private final Ticker ticker;
    private final LongSupplier seeds;
    private final AtomicReference<Active> active = new AtomicReference<>();
    private final LongAdder delaysInjected = new LongAdder();

    /**
     * @param ticker time of injections and their expiry
     * @param seeds  seeds for injections that name none
     */
    public FaultInjector(Ticker ticker, LongSupplier seeds) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.seeds = Objects.requireNonNull(seeds, "seeds");
    }

    /**
     * Puts {@code delay} in effect from now, replacing any other, or clears when
     * {@link InjectedDelay#clears()}.
     *
     * @return what is in effect now: {@code delay} with the seed it uses, or {@link InjectedDelay#NONE}
     */
    public InjectedDelay inject(InjectedDelay delay) {
        if (delay.clears()) {
            clear();
            return InjectedDelay.NONE;
        }
        long seed = delay.seed();
        while (seed == 0) {
            seed = seeds.getAsLong();
        }
        InjectedDelay seeded = delay.withSeed(seed);
        active.set(new Active(seeded, ticker.nanoTime() + seeded.durationNanos(), new Random(seed)));
        return seeded;
    }

    public void clear() {
        active.set(null);
    }

    /** How long to hold the sub-request a worker just took: 0 for not at all. */
    public long nextDelayNanos() {
        Active now = inEffect();
        if (now == null || now.coin().nextDouble() >= now.delay().probability()) {
            return 0;
        }
        delaysInjected.increment();
        return now.delay().delayNanos();
    }

    /** The delay in effect, if any and not expired. */
    public Optional<InjectedDelay> current() {
        return Optional.ofNullable(inEffect()).map(Active::delay);
    }

    /** Sub-requests delayed so far, over every injection. */
    public long delaysInjected() {
        return delaysInjected.sum();
    }

    /** The injection in effect; the clock is read only when there is one. */
    private Active inEffect() {
        Active now = active.get();
        if (now != null && ticker.nanoTime() - now.untilNanos() >= 0) {
            // Lapsed: drop it, unless a new injection already replaced it.
            active.compareAndSet(now, null);
            return null;
        }
        return now;
    }
}
