package io.hedgerow.root.search;

/**
 * When to try again the backups of one phase that the budget refused: twice the hedge delay after
 * the first refusal, then twice the previous wait each time (a copy still out at 2x, 4x, 8x the
 * hedge delay is ever more surely a straggler), so a copy stuck behind a delay gets its backup as
 * soon as the budget has room instead of holding its leaf's worker until the search gives up.
 * A retry belongs to the hedge round it retries; it does not start a new one.
 */
final class RefusedBackups {
    private long waitNanos;
    private boolean retryDue;

    /** A hedge timer fired: true when it starts a new round, false when it retries refused backups. */
    boolean startsRound() {
        boolean starts = !retryDue;
        retryDue = false;
        return starts;
    }

    /** Some backups were refused: the wait until the timer that retries them. */
    long retryAfterNanos(long hedgeDelayNanos) {
        waitNanos = waitNanos == 0 ? 2 * hedgeDelayNanos : 2 * waitNanos;
        retryDue = true;
        return waitNanos;
    }
}
