package io.hedgerow.leaf.fault;

import io.hedgerow.common.time.Ticker;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Decides, for the leaf's workers, which sub-requests to hold and for how long. Two independent
 * faults, each replaced only by an injection of its own kind:
 * <ul>
 *   <li>an {@link InjectedDelay}: for each sub-request a worker takes, a coin flip with its
 *       probability and, if it comes up, a hold of the fixed delay or a draw from the exponential
 *       distribution ({@link #nextDelayNanos()});
 *   <li>an {@link InjectedStall}: a window of {@code stallNanos} at the start of every
 *       {@code periodNanos}, phase counted from the injection, in which no worker starts or resumes
 *       a sub-request ({@link #stallRemainingNanos()}).
 * </ul>
 * Pure policy: it never sleeps and has no clock or thread of its own; the worker applies the
 * decision (see {@code LeafTask}). Expiry is checked on every decision rather than by a timer, so
 * an injection lapses exactly {@code durationNanos} after it was made even if nothing ever clears
 * it, and a test drives it with a {@code ManualTicker}.
 *
 * <p><b>Assumptions and guarantees.</b> Every method is thread-safe. {@link #nextDelayNanos()} and
 * {@link #stallRemainingNanos()} run on every worker for every sub-request; with nothing injected
 * each costs one volatile read and reads no clock. Each delay injection flips its coins and draws
 * its delays from its own {@link Random} seeded from {@link InjectedDelay#seed()} (or from
 * {@code seeds} when that is 0), a coin then, if delayed and exponential, a draw; so for one seed
 * the n-th decision is always the same. Which sub-request gets the n-th decision depends on the
 * order in which workers ask.
 */
public final class FaultInjector {
    /** A delay in effect, until {@code untilNanos} on the ticker unless it lasts until exit. */
    private record ActiveDelay(InjectedDelay delay, long untilNanos, Random random) {
    }

    /** A stall in effect since {@code sinceNanos}. */
    private record ActiveStall(InjectedStall stall, long sinceNanos) {
    }

    private static final long MAX_DELAY_NANOS = InjectedDelay.MAX_DELAY.toNanos();

    private final Ticker ticker;
    private final LongSupplier seeds;
    private final AtomicReference<ActiveDelay> delay = new AtomicReference<>();
    private final AtomicReference<ActiveStall> stall = new AtomicReference<>();

    /**
     * @param ticker time of injections and their expiry
     * @param seeds  seeds for injections that name none
     */
    public FaultInjector(Ticker ticker, LongSupplier seeds) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.seeds = Objects.requireNonNull(seeds, "seeds");
    }

    /**
     * Puts {@code injected} in effect from now, replacing any other delay (a stall stays), or
     * clears the delay when {@link InjectedDelay#clears()}.
     *
     * @return what is in effect now: {@code injected} with the seed it uses, or {@link InjectedDelay#NONE}
     */
    public InjectedDelay inject(InjectedDelay injected) {
        if (injected.clears()) {
            delay.set(null);
            return InjectedDelay.NONE;
        }
        long seed = injected.seed();
        while (seed == 0) {
            seed = seeds.getAsLong();
        }
        InjectedDelay seeded = injected.withSeed(seed);
        delay.set(new ActiveDelay(seeded, ticker.nanoTime() + seeded.durationNanos(), new Random(seed)));
        return seeded;
    }

    /**
     * Puts {@code injected} in effect from now, its first stall starting at once, replacing any
     * other stall (a delay stays), or clears the stall when {@link InjectedStall#clears()}.
     *
     * @return what is in effect now: {@code injected} or {@link InjectedStall#NONE}
     */
    public InjectedStall inject(InjectedStall injected) {
        if (injected.clears()) {
            stall.set(null);
            return InjectedStall.NONE;
        }
        stall.set(new ActiveStall(injected, ticker.nanoTime()));
        return injected;
    }

    /** Clears both the delay and the stall. */
    public void clear() {
        delay.set(null);
        stall.set(null);
    }

    /** How long to hold the sub-request a worker just took: 0 for not at all. */
    public long nextDelayNanos() {
        ActiveDelay now = delayInEffect();
        if (now == null || now.random().nextDouble() >= now.delay().probability()) {
            return 0;
        }
        InjectedDelay injected = now.delay();
        return switch (injected.distribution()) {
            case FIXED -> injected.delayNanos();
            case EXPONENTIAL -> exponential(injected.delayNanos(), now.random().nextDouble());
        };
    }

    /**
     * How much longer the stall the leaf is in right now lasts: 0 when it is in none. A stall ends
     * early when the injection lapses.
     */
    public long stallRemainingNanos() {
        ActiveStall active = stall.get();
        if (active == null) {
            return 0;
        }
        InjectedStall injected = active.stall();
        long sinceNanos = ticker.nanoTime() - active.sinceNanos();
        long leftNanos = injected.durationNanos() == InjectedDelay.UNTIL_EXIT ? Long.MAX_VALUE
                : injected.durationNanos() - sinceNanos;
        if (leftNanos <= 0) {
            // Lapsed: drop it, unless a new injection already replaced it.
            stall.compareAndSet(active, null);
            return 0;
        }
        long phaseNanos = sinceNanos % injected.periodNanos();
        return phaseNanos < injected.stallNanos() ? Math.min(injected.stallNanos() - phaseNanos, leftNanos) : 0;
    }

    /** The delay in effect, if any and not expired. */
    public Optional<InjectedDelay> currentDelay() {
        return Optional.ofNullable(delayInEffect()).map(ActiveDelay::delay);
    }

    /** The stall in effect, if any and not expired (whether or not the leaf is inside a stall right now). */
    public Optional<InjectedStall> currentStall() {
        ActiveStall active = stall.get();
        if (active == null) {
            return Optional.empty();
        }
        long durationNanos = active.stall().durationNanos();
        if (durationNanos != InjectedDelay.UNTIL_EXIT && ticker.nanoTime() - active.sinceNanos() >= durationNanos) {
            stall.compareAndSet(active, null);
            return Optional.empty();
        }
        return Optional.of(active.stall());
    }

    /** A draw of an exponential with the given mean, from a uniform draw in [0, 1); at least 1 ns, at most the maximum delay. */
    static long exponential(long meanNanos, double uniform) {
        double draw = -meanNanos * Math.log1p(-uniform);
        return Math.max(1, Math.min(MAX_DELAY_NANOS, Math.round(draw)));
    }

    /** The delay in effect; the clock is read only when there is one. */
    private ActiveDelay delayInEffect() {
        ActiveDelay now = delay.get();
        if (now != null && now.delay().durationNanos() != InjectedDelay.UNTIL_EXIT
                && ticker.nanoTime() - now.untilNanos() >= 0) {
            delay.compareAndSet(now, null);
            return null;
        }
        return now;
    }
}
