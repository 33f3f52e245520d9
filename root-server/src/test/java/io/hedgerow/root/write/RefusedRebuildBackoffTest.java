package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.policy.Backoff;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class RefusedRebuildBackoffTest {
    private static final long SECOND = Duration.ofSeconds(1).toNanos();

    @Test
    void eachRefusalInARowDoublesTheWaitUpToTheCapAndARebuildForgetsThem() {
        RefusedRebuildBackoff<String> backoff = new RefusedRebuildBackoff<>(
                Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(4)));
        assertThat(backoff.holdsBack("a", 0)).as("never refused").isFalse();

        // t=0: first refusal, held 1 s; t=1 s: second, held 2 s; t=3 s: third, 4 s; t=7 s: fourth, capped at 4 s.
        long[] refusedAt = {0, SECOND, 3 * SECOND, 7 * SECOND};
        long[] heldFor = {SECOND, 2 * SECOND, 4 * SECOND, 4 * SECOND};
        for (int i = 0; i < refusedAt.length; i++) {
            backoff.refused("a", refusedAt[i]);
            assertThat(backoff.holdsBack("a", refusedAt[i] + heldFor[i] - 1)).as("refusal %d, just before", i + 1).isTrue();
            assertThat(backoff.holdsBack("a", refusedAt[i] + heldFor[i])).as("refusal %d, at the end", i + 1).isFalse();
            assertThat(backoff.remainingNanos("a", refusedAt[i])).isEqualTo(heldFor[i]);
        }
        assertThat(backoff.holdsBack("b", 7 * SECOND)).as("per replica").isFalse();

        backoff.cleared("a");
        backoff.refused("a", 20 * SECOND);
        assertThat(backoff.remainingNanos("a", 20 * SECOND)).as("rebuilt since: a first refusal again").isEqualTo(SECOND);
    }
}
