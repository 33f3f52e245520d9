package io.hedgerow.root.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EventQueueTest {

    @Test
    void runsEventsInTimeOrderAndTiesInTheOrderTheyWereScheduled() {
        EventQueue queue = new EventQueue();
        List<String> ran = new ArrayList<>();
        queue.at(20, () -> ran.add("b@" + queue.nanoTime()));
        queue.at(10, () -> {
            ran.add("a@" + queue.nanoTime());
            queue.after(10, () -> ran.add("c@" + queue.nanoTime())); // ties with b, scheduled after it
            queue.at(5, () -> ran.add("late@" + queue.nanoTime())); // in the past: runs now
        });

        while (queue.runNext()) {
        }

        assertThat(ran).containsExactly("a@10", "late@10", "b@20", "c@20");
        assertThat(queue.executed()).isEqualTo(4);
    }

    @Test
    void keepsOrderAcrossManyRandomEvents() {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        EventQueue queue = new EventQueue();
        List<Long> times = new ArrayList<>();
        List<Integer> order = new ArrayList<>();
        long[] scheduledAt = new long[10_000];
        for (int i = 0; i < 10_000; i++) {
            int index = i;
            scheduledAt[i] = random.nextLong(1_000); // many ties among 10,000 events
            queue.at(scheduledAt[i], () -> {
                times.add(queue.nanoTime());
                order.add(index);
            });
        }
        while (queue.runNext()) {
        }
        assertThat(times).as("seed %d", seed).isSorted().hasSize(10_000);
        for (int i = 1; i < order.size(); i++) {
            if (scheduledAt[order.get(i)] == scheduledAt[order.get(i - 1)]) {
                assertThat(order.get(i)).as("seed %d: ties in scheduling order", seed).isGreaterThan(order.get(i - 1));
            }
        }
    }
}
