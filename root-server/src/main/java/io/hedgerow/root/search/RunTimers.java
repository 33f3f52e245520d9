package io.hedgerow.root.search;

import java.util.EnumMap;
import java.util.Map;

/**
 * The times at which a search wants to be woken, by what for, in nanoseconds of the injected
 * ticker. The run asks its adapter for one timer at the earliest of them ({@link Action.ArmTimer});
 * when it fires, the run handles each one that is due, in the order of {@link Timer}, so a
 * deadline due at the same time as a hedge ends the phase first.
 */
final class RunTimers {
    /** What a timer is for, in the order due timers are handled. */
    enum Timer { DEADLINE, CANARY_CHECK, CUTOFF, HEDGE, TWINS, FETCH_HEDGE }

    private final Map<Timer, Long> due = new EnumMap<>(Timer.class);

    void arm(Timer timer, long atNanos) {
        due.put(timer, atNanos);
    }

    void disarm(Timer timer) {
        due.remove(timer);
    }

    void disarmAll() {
        due.clear();
    }

    boolean armed(Timer timer) {
        return due.containsKey(timer);
    }

    /** True, and disarmed, when {@code timer} is armed for {@code nowNanos} or earlier. */
    boolean take(Timer timer, long nowNanos) {
        Long at = due.get(timer);
        if (at == null || nowNanos - at < 0) {
            return false;
        }
        due.remove(timer);
        return true;
    }

    /** The earliest armed time, or null when nothing is armed. */
    Long earliest() {
        Long earliest = null;
        for (long at : due.values()) {
            if (earliest == null || at - earliest < 0) {
                earliest = at;
            }
        }
        return earliest;
    }
}
