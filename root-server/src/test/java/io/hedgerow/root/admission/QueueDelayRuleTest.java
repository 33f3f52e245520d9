package io.hedgerow.root.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CoDel rule scripted in milliseconds: target 5 ms, interval 100 ms. Each observation is a
 * search's queue delay at a time; the rule sheds only a standing delay that keeps growing.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class QueueDelayRuleTest {
    private static final long MS = 1_000_000L;

    private final QueueDelayRule rule = new QueueDelayRule(5 * MS, 100 * MS);

    /** One observation every 10 ms from {@code fromMs} to {@code toMs}, the delay rising linearly. */
    private void observe(long fromMs, long toMs, long delayAtFromMs, double delayPerMs) {
        for (long t = fromMs; t <= toMs; t += 10) {
            rule.observe((long) ((delayAtFromMs + (t - fromMs) * delayPerMs) * MS), t * MS);
        }
    }

    @Test
    void shedsOnceTheStandingDelayHasRisenByTheTargetOverTwoIntervalsInARow() {
        // An open loop at twice the capacity: the delay grows by a millisecond every millisecond.
        observe(0, 200, 6, 1.0);
        assertThat(rule.shedding()).as("two intervals closed, one rise").isFalse();
        observe(210, 300, 216, 1.0);
        assertThat(rule.shedding()).as("the third interval closes on a second rise").isTrue();
    }

    @Test
    void aStandingDelayThatDoesNotGrowIsNeverShed() {
        // A closed loop of more clients than the limit: 50 ms of queue delay, give or take 3 ms, for 10 s.
        for (long t = 0; t <= 10_000; t += 10) {
            rule.observe((50 + (t / 10) % 7 - 3) * MS, t * MS);
            assertThat(rule.shedding()).as("at %d ms", t).isFalse();
        }
    }

    @Test
    void aQueueFormingOnceThenStandingIsNotShed() {
        // A closed loop starting: the delay climbs to 50 ms in the first interval, then stands.
        observe(0, 90, 5, 0.5);
        observe(100, 2_000, 50, 0);
        assertThat(rule.shedding()).isFalse();
    }

    @Test
    void oneDelayUnderTheTargetEndsTheShedding() {
        observe(0, 300, 6, 1.0);
        assertThat(rule.shedding()).isTrue();
        rule.observe(4 * MS, 310 * MS);
        assertThat(rule.shedding()).isFalse();
    }

    @Test
    void anEmptyQueueEndsTheShedding() {
        observe(0, 300, 6, 1.0);
        assertThat(rule.shedding()).isTrue();
        rule.queueEmptied();
        assertThat(rule.shedding()).isFalse();
        observe(310, 400, 300, 1.0);
        assertThat(rule.shedding()).as("the history went with the queue").isFalse();
    }

    @Test
    void delaysUnderTheTargetNeverShedHoweverTheyGrow() {
        observe(0, 1_000, 0, 0.004);
        assertThat(rule.shedding()).isFalse();
    }

    @Test
    void refusesATargetAndIntervalThatMakeNoSense() {
        assertThatThrownBy(() -> new QueueDelayRule(0, 100 * MS)).hasMessageContaining("targetNanos: 0 (expected: > 0)");
        assertThatThrownBy(() -> new QueueDelayRule(5 * MS, 5 * MS)).hasMessageContaining("intervalNanos: 5000000");
    }
}
