package io.hedgerow.root.sim;

/** What the modelled leaves did, over a whole run (warm-up included). */
final class SimCounters {
    /** Tasks a worker started. */
    long started;
    /** Worker time those tasks took (drawn time times the slowdowns), in nanoseconds. */
    long workNanos;
    long busyAnswers;
    long expiredAnswers;
    /** Running tasks stopped by the root's cancel. */
    long stoppedRunning;
    /** Tied copies dropped by their twin's cancel before they started. */
    long twinDroppedQueued;
    /** Tied copies whose twin's cancel came when they were running already: both ran. */
    long twinBothRan;
    /** Fetches the measured searches sent (the fetch phase; {@code hits}). */
    long fetchesSent;
    /** Core-nanoseconds the shared cores worked, set at the end of a run; NaN without shared cores. */
    double cpuCoreNanos = Double.NaN;
}
