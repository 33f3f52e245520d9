package io.hedgerow.common.policy;

import java.util.HashMap;
import java.util.Map;

/**
 * Whether the JIT compilers of a set of JVMs (a root and its leaves) have gone quiet, from their
 * total compilation times read every few seconds. A warm-up that stops while they still compile
 * hands the compiler's work to the first users: on two cores shared by five JVMs each compiler
 * still took about a core when the search rate had stopped rising (the compiler was what held the
 * rate down), and a load step right after {@code /ready} waited 6-8 s behind it.
 *
 * <p>Quiet means: in each of the last {@code stableReadings} intervals between readings, every JVM
 * read at both ends compiled for at most {@code busyFraction} of the interval. A JVM that cannot be
 * read (no metrics port, not answering) does not count, so it cannot hold a warm-up back forever;
 * one read for the first time makes that interval not quiet.
 *
 * <p><b>Assumptions and guarantees.</b> Pure: time and readings come from the caller. Not
 * thread-safe.
 */
public final class CompilationQuiet {
    private final double busyFraction;
    private final int stableReadings;
    private Map<String, Long> lastMillis = Map.of();
    private long lastNanos;
    private boolean read;
    private int quietIntervals;

    /**
     * @param busyFraction   the most compilation time per interval, as a fraction of it, that is quiet
     * @param stableReadings quiet intervals in a row that mean quiet
     */
    public CompilationQuiet(double busyFraction, int stableReadings) {
        if (!(busyFraction >= 0) || stableReadings < 1) {
            throw new IllegalArgumentException("busyFraction " + busyFraction + ", stableReadings " + stableReadings
                    + " (expected: >= 0, >= 1)");
        }
        this.busyFraction = busyFraction;
        this.stableReadings = stableReadings;
    }

    /**
     * One reading at {@code nowNanos}: each JVM's total compilation time in milliseconds, by a name
     * that stays the same from reading to reading.
     */
    public void reading(long nowNanos, Map<String, Long> totalMillis) {
        if (read) {
            double allowedMillis = busyFraction * (nowNanos - lastNanos) / 1e6;
            boolean quiet = true;
            for (Map.Entry<String, Long> jvm : totalMillis.entrySet()) {
                Long before = lastMillis.get(jvm.getKey());
                if (before == null || jvm.getValue() - before > allowedMillis) {
                    quiet = false;
                }
            }
            quietIntervals = quiet ? quietIntervals + 1 : 0;
        }
        lastMillis = new HashMap<>(totalMillis);
        lastNanos = nowNanos;
        read = true;
    }

    /** Whether the compilers have been quiet for the stable readings. */
    public boolean quiet() {
        return quietIntervals >= stableReadings;
    }
}
