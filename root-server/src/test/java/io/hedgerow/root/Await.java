package io.hedgerow.root;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Waits in a test for something the servers do on their own threads: polls a condition until it
 * holds, failing with what was awaited once {@code patience} has passed. The patience is a deadline,
 * not a timing claim: generous, so a loaded 2-core machine does not fail it.
 */
public final class Await {
    /** A condition that may need I/O to be checked. */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    private Await() {
    }

    /** Polls {@code condition} every few milliseconds until it holds; fails after {@code patience}. */
    public static void until(String what, Duration patience, Condition condition) throws Exception {
        until(() -> what, patience, condition);
    }

    /** As above, {@code what} read when it fails (it may say the state the wait ended in). */
    public static void until(Supplier<String> what, Duration patience, Condition condition) throws Exception {
        long deadline = System.nanoTime() + patience.toNanos();
        while (!condition.holds()) {
            assertThat(System.nanoTime() - deadline).as(() -> "waiting for " + what.get()).isNegative();
            Thread.sleep(10);
        }
    }
}
