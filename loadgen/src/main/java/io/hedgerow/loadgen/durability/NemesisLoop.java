package io.hedgerow.loadgen.durability;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.loadgen.durability.Op.Kind;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Jepsen's usual nemesis schedule: a quiet spell, one fault from a nemesis chosen at random, a
 * spell with it in effect, then heal; again until stopped. Every strike and heal is a
 * {@link Kind#FAULT_START} / {@link Kind#FAULT_END} entry of the history. One fault at a time: with
 * two replicas, a second fault could take a partition's every copy, which tests availability,
 * not durability.
 *
 * <p><b>Assumptions and guarantees.</b> Runs on its own thread ({@link #start()}); {@link #stop()}
 * wakes it, waits for the fault in progress, heals, and returns. Its random source is seeded: the
 * sequence of choices repeats with the seed (their timing relative to writes does not).
 */
public final class NemesisLoop {
    private final List<Nemesis> nemeses;
    private final History history;
    private final Ticker ticker;
    private final long startNanos;
    private final NemesisSchedule schedule;
    private final PrintStream log;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private Thread thread;
    private int strikes;
    private int failures;

    /**
     * The spells' lengths, each drawn uniformly between its bounds.
     *
     * @param quietMin shortest spell without a fault
     * @param quietMax longest
     * @param faultMin shortest spell with one
     * @param faultMax longest
     */
    public record Timing(Duration quietMin, Duration quietMax, Duration faultMin, Duration faultMax) {
        public Timing {
            if (quietMin.compareTo(quietMax) > 0 || faultMin.compareTo(faultMax) > 0 || quietMin.isNegative()
                    || faultMin.isNegative()) {
                throw new IllegalArgumentException("timing: quiet " + quietMin + ".." + quietMax + ", fault " + faultMin
                        + ".." + faultMax + " (expected: 0 <= min <= max)");
            }
        }

        /** 2-6 s quiet, 3-10 s of fault. */
        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(2), Duration.ofSeconds(6), Duration.ofSeconds(3), Duration.ofSeconds(10));
        }
    }

    public NemesisLoop(List<Nemesis> nemeses, History history, Ticker ticker, long startNanos, Timing timing, long seed,
            PrintStream log) {
        this.nemeses = List.copyOf(nemeses);
        this.history = history;
        this.ticker = ticker;
        this.startNanos = startNanos;
        this.schedule = nemeses.isEmpty() ? null : new NemesisSchedule(nemeses.size(), timing, seed);
        this.log = log;
    }

    public void start() {
        if (nemeses.isEmpty()) {
            return;
        }
        thread = Thread.ofPlatform().name("nemesis").start(this::run);
    }

    /** Stops striking and heals whatever is in effect; returns once healed. */
    public void stop() throws InterruptedException {
        stopped.countDown();
        if (thread != null) {
            thread.join();
        }
    }

    /** Faults started. */
    public int strikes() {
        return strikes;
    }

    /** Strikes and heals that failed. */
    public int failures() {
        return failures;
    }

    private void run() {
        try {
            while (!pause(schedule.quietMillis())) {
                Nemesis nemesis = nemeses.get(schedule.nemesis());
                // Recorded at the moment of the strike: a strike returns only once its processes are gone.
                long struckNanos = ticker.nanoTime();
                try {
                    String what = nemesis.strike(schedule.random());
                    strikes++;
                    record(Kind.FAULT_START, nemesis, what, struckNanos);
                } catch (IOException | RuntimeException e) {
                    failures++;
                    record(Kind.FAULT_START, nemesis, "failed: " + e.getMessage(), struckNanos);
                }
                pause(schedule.faultMillis());
                heal(nemesis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            nemeses.forEach(this::heal);
        }
    }

    private void heal(Nemesis nemesis) {
        try {
            String what = nemesis.heal();
            if (!what.isEmpty()) {
                record(Kind.FAULT_END, nemesis, what, ticker.nanoTime());
            }
        } catch (IOException | RuntimeException e) {
            failures++;
            record(Kind.FAULT_END, nemesis, "failed: " + e.getMessage(), ticker.nanoTime());
        }
    }

    /** Waits a spell the schedule drew; true when stopped meanwhile. */
    private boolean pause(long millis) throws InterruptedException {
        return stopped.await(millis, TimeUnit.MILLISECONDS);
    }

    private void record(Kind kind, Nemesis nemesis, String what, long tickerNanos) {
        long atNanos = tickerNanos - startNanos;
        history.add(Op.nemesis(kind, nemesis.name(), atNanos, what));
        log.printf(java.util.Locale.ROOT, "  nemesis %6.1fs %s %s: %s%n", atNanos / 1e9, nemesis.name(),
                kind == Kind.FAULT_START ? "start" : "heal", what);
    }
}
