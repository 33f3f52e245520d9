package io.hedgerow.root.local;

import io.hedgerow.common.policy.Backoff;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * When to restart one leaf process that died, as a process supervisor decides: soon after a first
 * death, later after each death that follows within the window ({@link Backoff}: attempt n waits
 * in [c/2, c], c = min(max, initial * 2^n), n the deaths in the window less one), and, once it
 * has died {@link Settings#crashLoopDeaths} times within the window, no sooner than
 * {@link Settings#crashLoopDelay}: a crash loop, which the supervisor reports. Deaths older than the
 * window are forgotten, so a leaf that ran well for a while restarts quickly again.
 *
 * <p>Pure: no clock and no randomness of its own; the caller passes the time and the random draw,
 * so a scripted test asserts exact delays. Not thread-safe: one supervisor thread owns it.
 */
public final class RestartPolicy {
    /**
     * @param backoff         the wait before a restart, by deaths in the window
     * @param crashLoopDeaths deaths within {@code window} that make a crash loop (>= 2)
     * @param window          how far back deaths count
     * @param crashLoopDelay  the shortest wait before restarting a leaf in a crash loop
     */
    public record Settings(Backoff backoff, int crashLoopDeaths, Duration window, Duration crashLoopDelay) {
        public Settings {
            Objects.requireNonNull(backoff, "backoff");
            if (crashLoopDeaths < 2) {
                throw new IllegalArgumentException("crashLoopDeaths: " + crashLoopDeaths + " (expected: >= 2)");
            }
            if (window.isNegative() || window.isZero()) {
                throw new IllegalArgumentException("window: " + window + " (expected: > 0)");
            }
            if (crashLoopDelay.isNegative()) {
                throw new IllegalArgumentException("crashLoopDelay: " + crashLoopDelay + " (expected: >= 0)");
            }
        }

        /**
         * A first restart within 0.5-1 s, doubling up to 30 s; 4 deaths within 2 minutes are a crash
         * loop, restarted once a minute.
         */
        public static Settings defaults() {
            return new Settings(Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(30)), 4,
                    Duration.ofMinutes(2), Duration.ofMinutes(1));
        }
    }

    /**
     * What to do about one death.
     *
     * @param delayNanos     wait this long, then start the leaf again
     * @param deathsInWindow deaths within the window, this one included
     * @param crashLoop      whether the leaf is in a crash loop
     */
    public record Decision(long delayNanos, int deathsInWindow, boolean crashLoop) {
    }

    private final Settings settings;
    private final ArrayDeque<Long> deaths = new ArrayDeque<>();

    public RestartPolicy(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /**
     * The leaf died at {@code nowNanos}.
     *
     * @param uniform a random draw in [0, 1) for the backoff's jitter
     */
    public Decision died(long nowNanos, double uniform) {
        forgetOld(nowNanos);
        deaths.addLast(nowNanos);
        int count = deaths.size();
        long delay = settings.backoff().delayNanos(count - 1, uniform);
        boolean crashLoop = count >= settings.crashLoopDeaths();
        if (crashLoop) {
            delay = Math.max(delay, settings.crashLoopDelay().toNanos());
        }
        return new Decision(delay, count, crashLoop);
    }

    /** Whether the deaths within the window at {@code nowNanos} make a crash loop. */
    public boolean crashLooping(long nowNanos) {
        forgetOld(nowNanos);
        return deaths.size() >= settings.crashLoopDeaths();
    }

    private void forgetOld(long nowNanos) {
        long windowNanos = settings.window().toNanos();
        while (!deaths.isEmpty() && nowNanos - deaths.peekFirst() >= windowNanos) {
            deaths.removeFirst();
        }
    }
}
