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
        for (int i = 0; i < 10_000; i++) {
            queue.at(random.nextLong(1_000), () -> times.add(queue.nanoTime()));
        }
        while (queue.runNext()) {
        }
        assertThat(times).as("seed %d", seed).isSorted().hasSize(10_000);
    }
}
