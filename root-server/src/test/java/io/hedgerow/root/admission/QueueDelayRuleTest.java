package io.hedgerow.root.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CoDel rule scripted in milliseconds: target 5 ms, interval 100 ms. Each observation is a
 * search leaving the queue: its queue delay at a time, and the searches outstanding then; the rule
 * sheds only a standing delay that keeps growing with the searches outstanding.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class QueueDelayRuleTest {
    private static final long MS = 1_000_000L;

    /** No tolerance: the growth rule alone (the tolerance has tests of its own below). */
    private QueueDelayRule rule = new QueueDelayRule(5 * MS, 100 * MS, 0);

    /**
     * One search leaving the queue every 10 ms from {@code fromMs} to {@code toMs}, the delay rising
     * linearly; the searches outstanding rise with the delay, as in an open loop (one search more
     * waiting for each 10 ms of delay, the time one takes).
     */
    private void observe(long fromMs, long toMs, long delayAtFromMs, double delayPerMs) {
        for (long t = fromMs; t <= toMs; t += 10) {
            double delayMs = delayAtFromMs + (t - fromMs) * delayPerMs;
            rule.observe((long) (delayMs * MS), t * MS, (int) (delayMs / 10), true);
        }
    }

    @Test
    void shedsOnceTheStandingDelayHasRisenByTheTargetOverThreeIntervalsInARow() {
        // An open loop at twice the capacity: the delay grows by a millisecond every millisecond.
        observe(0, 300, 6, 1.0);
        assertThat(rule.shedding()).as("three intervals closed, two rises").isFalse();
        observe(310, 400, 316, 1.0);
        assertThat(rule.shedding()).as("the fourth interval closes on a third rise").isTrue();
    }

    @Test
    void aStandingDelayThatDoesNotGrowIsNeverShed() {
        // A closed loop of more clients than the limit: 50 ms of queue delay, give or take 3 ms, for 10 s.
        for (long t = 0; t <= 10_000; t += 10) {
            rule.observe((50 + (t / 10) % 7 - 3) * MS, t * MS, 64, true);
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
    void aClosedLoopWhoseDelayGrowsIsNotShedForItsSearchesOutstandingDoNot() {
        // 64 clients over a limit of 32, a search leaving the queue every millisecond; for 400 ms the
        // searches slow down and the delay climbs by a millisecond every 10 ms, but the searches
        // outstanding stay at the 64 connections, give or take two in transit between an answer and
        // the client's next search.
        for (long t = 0; t <= 2_000; t++) {
            long delayMs = 30 + (t < 400 ? t / 10 : 40);
            rule.observe(delayMs * MS, t * MS, 62 + (int) (t * 7 % 3), true);
            assertThat(rule.shedding()).as("at %d ms", t).isFalse();
        }
    }

    @Test
    void theSameDelayGrowingWithTheSearchesOutstandingIsShed() {
        // As above, but an open loop: the searches outstanding grow with the delay (a millisecond of
        // delay per search more, at one search leaving the queue per millisecond).
        long t;
        for (t = 0; t <= 400 && !rule.shedding(); t++) {
            long delayMs = 30 + t / 10;
            rule.observe(delayMs * MS, t * MS, 62 + (int) delayMs, true);
        }
        assertThat(rule.shedding()).isTrue();
        assertThat(t).as("within a few intervals").isLessThanOrEqualTo(401);
    }

    @Test
    void whileSheddingTheQueueIsHeldAtFiveTargetsOfDelay() {
        observe(0, 400, 6, 1.0);
        assertThat(rule.shedding()).isTrue();
        assertThat(rule.refuses(25 * MS, 401 * MS)).as("the oldest waited 25 ms").isTrue();
        assertThat(rule.refuses(24 * MS, 402 * MS)).as("the oldest waited 24 ms: queued").isFalse();
        assertThat(rule.refuses(0, 403 * MS)).as("none waits: queued").isFalse();
        rule.observe(1 * MS, 404 * MS, 1, true);
        assertThat(rule.refuses(30 * MS, 405 * MS)).as("a short wait does not end the shedding").isTrue();
    }

    @Test
    void notRefusingForAWholeIntervalEndsTheShedding() {
        observe(0, 400, 6, 1.0);
        assertThat(rule.refuses(30 * MS, 410 * MS)).isTrue();
        assertThat(rule.refuses(10 * MS, 500 * MS)).isFalse();
        assertThat(rule.shedding()).as("refused 90 ms ago").isTrue();
        assertThat(rule.refuses(30 * MS, 510 * MS)).as("an interval without a refusal: the overload is over").isFalse();
        assertThat(rule.shedding()).isFalse();
        assertThat(rule.refuses(300 * MS, 520 * MS)).as("a long wait alone no longer refuses").isFalse();
    }

    @Test
    void theRefusalsEmptyingTheQueueDoNotEndTheShedding() {
        observe(0, 400, 6, 1.0);
        rule.queueEmptied();
        assertThat(rule.shedding()).isTrue();
        assertThat(rule.refuses(25 * MS, 420 * MS)).isTrue();
    }

    @Test
    void anEmptyQueueEndsADelayThatWasGrowing() {
        observe(0, 300, 6, 1.0);
        assertThat(rule.shedding()).isFalse();
        rule.queueEmptied();
        observe(310, 500, 400, 1.0);
        assertThat(rule.shedding()).as("the history went with the queue").isFalse();
        observe(510, 600, 591, 1.0);
        assertThat(rule.shedding()).as("rising again, counted afresh").isFalse();
    }

    @Test
    void delaysUnderTheTargetNeverShedHoweverTheyGrow() {
        observe(0, 1_000, 0, 0.004);
        assertThat(rule.shedding()).isFalse();
    }

    @Test
    void aGrowingDelayUnderTheToleranceIsQueuedThrough() {
        // A leaf killed under half capacity: for 600 ms the delay grows by 0.3 ms every millisecond,
        // with the searches outstanding (an open loop), up to about 190 ms; then the other copies
        // catch up and it falls back. The growth rule alone sheds it; a tolerance of 250 ms does not.
        rule = new QueueDelayRule(5 * MS, 100 * MS, 250 * MS);
        QueueDelayRule untolerant = new QueueDelayRule(5 * MS, 100 * MS, 0);
        boolean untolerantShed = false;
        for (long t = 0; t <= 1_200; t += 10) {
            double delayMs = t <= 600 ? 10 + 0.3 * t : Math.max(1, 190 - 0.5 * (t - 600));
            rule.observe((long) (delayMs * MS), t * MS, (int) (delayMs / 10), true);
            untolerant.observe((long) (delayMs * MS), t * MS, (int) (delayMs / 10), true);
            assertThat(rule.shedding()).as("at %d ms", t).isFalse();
            untolerantShed |= untolerant.shedding();
        }
        assertThat(untolerantShed).as("the same delays without the tolerance").isTrue();
    }

    @Test
    void aDelayThatGrowsPastTheToleranceIsShed() {
        // An open loop at twice the capacity: past 250 ms within a few intervals, then shed.
        rule = new QueueDelayRule(5 * MS, 100 * MS, 250 * MS);
        observe(0, 300, 6, 1.0);
        assertThat(rule.shedding()).as("rising, but under the tolerance").isFalse();
        observe(310, 500, 316, 1.0);
        assertThat(rule.shedding()).as("the least delay of the interval closed at 400 ms was over 250 ms").isTrue();
    }

    @Test
    void refusesATargetAndIntervalThatMakeNoSense() {
        assertThatThrownBy(() -> new QueueDelayRule(0, 100 * MS, 0)).hasMessageContaining("targetNanos: 0 (expected: > 0)");
        assertThatThrownBy(() -> new QueueDelayRule(5 * MS, 5 * MS, 0)).hasMessageContaining("intervalNanos: 5000000");
        assertThatThrownBy(() -> new QueueDelayRule(5 * MS, 100 * MS, -1)).hasMessageContaining("toleratedNanos: -1");
    }
}
