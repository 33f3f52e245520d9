package io.hedgerow.loadgen.scenario;

import io.hedgerow.common.time.Durations;
import io.hedgerow.loadgen.scenario.FaultEvent.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The record of one phase's faults as they happen: what each fault was due to do (its targets, one
 * per fault and leaf) and every action taken on them. {@link #finish()} turns it into the phase's
 * {@link PhaseFaults}, naming the targets that never took effect.
 *
 * <p><b>Assumptions and guarantees.</b> Actions are recorded from the fault thread and, when a phase
 * ends or the run is interrupted, from the thread that undoes them; every method is synchronized.
 */
final class FaultLog {
    /**
     * One fault on one leaf.
     *
     * @param index the fault's place in its phase, so two faults of one kind on one leaf stay apart
     * @param due   when it is first due to act, since the phase started
     */
    record Target(int index, String fault, Leaves leaf, Duration due) {
        @Override
        public String toString() {
            return FaultEvent.target(fault, leaf);
        }
    }

    /** How often a target was applied and failed. */
    private static final class Tally {
        int applied;
        int failed;
    }

    private final Instant startedAt;
    private final long startNanos;
    private final Map<Target, Tally> targets = new LinkedHashMap<>();
    private final List<FaultEvent> events = new ArrayList<>();

    FaultLog() {
        this.startedAt = Instant.now();
        this.startNanos = System.nanoTime();
    }

    /** A target of this phase: one that never gets an {@link Outcome#APPLIED} event is reported. */
    synchronized Target expect(int index, String fault, Leaves leaf, Duration due) {
        Target target = new Target(index, fault, leaf, due);
        targets.putIfAbsent(target, new Tally());
        return target;
    }

    /** Records an action on {@code target} and returns its event. */
    synchronized FaultEvent record(Target target, String action, Outcome outcome, String detail) {
        long offsetNanos = System.nanoTime() - startNanos;
        FaultEvent event = new FaultEvent(startedAt.plusNanos(offsetNanos).toString(), offsetNanos / 1_000_000,
                target.fault(), target.leaf(), action, outcome, detail);
        events.add(event);
        Tally tally = targets.get(target);
        if (tally != null) { // null: an action of an earlier phase, such as a late resume
            switch (outcome) {
                case APPLIED -> tally.applied++;
                case FAILED -> tally.failed++;
                case UNDONE -> {
                }
            }
        }
        return event;
    }

    /** The phase's events, and the targets that never took effect with why. */
    synchronized PhaseFaults finish() {
        Duration ended = Duration.ofMillis((System.nanoTime() - startNanos) / 1_000_000);
        List<String> neverApplied = new ArrayList<>();
        targets.forEach((target, tally) -> {
            if (tally.applied > 0) {
                return;
            }
            String why;
            if (tally.failed > 0) {
                why = "every attempt failed";
            } else if (target.due().compareTo(ended) >= 0) {
                why = "due at " + Durations.format(target.due()) + ", after the phase's end at " + Durations.format(ended);
            } else {
                why = "due at " + Durations.format(target.due()) + ", not done when the phase ended at " + Durations.format(ended);
            }
            neverApplied.add(target + " (" + why + ")");
        });
        return new PhaseFaults(events, neverApplied);
    }
}
