package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for what a leaf does on its own threads; the bound is only for a leaf that never does it. */
final class Eventually {
    private static final Duration BOUND = Duration.ofSeconds(30);

    private Eventually() {
    }

    static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waiting for %s", what).isNegative();
            Thread.onSpinWait();
        }
    }
}
