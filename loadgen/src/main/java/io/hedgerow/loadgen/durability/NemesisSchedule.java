package io.hedgerow.loadgen.durability;

import java.time.Duration;
import java.util.Random;

/**
 * The seeded decisions of a {@link NemesisLoop}, apart from its thread and clock: how long each
 * quiet spell and each fault lasts, and which nemesis strikes. The nemesis's own choice (which leaf,
 * which host's link) comes from {@link #random()}, the same source, so one seed repeats the whole
 * sequence of choices, as it did before this class was drawn out of the loop.
 *
 * <p>Draws in the loop's order: {@link #quietMillis()}, {@link #nemesis()}, the strike's own draws,
 * {@link #faultMillis()}. Not thread-safe: the loop's thread alone uses it.
 */
final class NemesisSchedule {
    private final int nemeses;
    private final NemesisLoop.Timing timing;
    private final Random random;

    NemesisSchedule(int nemeses, NemesisLoop.Timing timing, long seed) {
        if (nemeses < 1) {
            throw new IllegalArgumentException("nemeses: " + nemeses + " (expected: >= 1)");
        }
        this.nemeses = nemeses;
        this.timing = timing;
        this.random = new Random(seed);
    }

    /** The next spell without a fault. */
    long quietMillis() {
        return spell(timing.quietMin(), timing.quietMax());
    }

    /** Index of the nemesis that strikes next. */
    int nemesis() {
        return random.nextInt(nemeses);
    }

    /** The next spell with the fault in effect. */
    long faultMillis() {
        return spell(timing.faultMin(), timing.faultMax());
    }

    /** The source the striking nemesis draws its own choices from. */
    Random random() {
        return random;
    }

    private long spell(Duration min, Duration max) {
        long spanMillis = max.toMillis() - min.toMillis();
        return min.toMillis() + (spanMillis == 0 ? 0 : (long) (random.nextDouble() * spanMillis));
    }
}
