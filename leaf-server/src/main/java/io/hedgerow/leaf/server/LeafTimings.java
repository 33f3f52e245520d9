package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Frame;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The queue and service times of the searches and fetches this leaf answered, per kind and
 * scheduling class, as {@code hedgerow_leaf_queue_seconds} and {@code hedgerow_leaf_service_seconds}
 * histograms: what the leaf measured itself, where the root's timers add the network and its own
 * queues. A dozen fixed buckets, as the root's sub-request timers have: every answer records, and a
 * full percentile histogram's binary search per record costs CPU on the answer path.
 *
 * <p>The timers live in a registry of their own that holds nothing until {@link #bindTo} adds the
 * leaf's exported registry to it (Micrometer's composite), so a leaf made without an HTTP port, or
 * by a test, records into nothing.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #answered} may be called from any worker: Micrometer's
 * timers are lock-free for recording. {@link #bindTo} may be called once, before or after answers.
 */
public final class LeafTimings {
    private static final Duration[] BUCKETS = {
            Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000), Duration.ofMillis(1),
            Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(20),
            Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(500),
            Duration.ofSeconds(1), Duration.ofSeconds(5)};
    private static final String[] KINDS = {"search", "fetch"};

    private final CompositeMeterRegistry registry = new CompositeMeterRegistry();
    /** By kind (0 search, 1 fetch), then class. */
    private final Timer[][] queue = new Timer[KINDS.length][SchedulingConfig.CLASSES];
    private final Timer[][] service = new Timer[KINDS.length][SchedulingConfig.CLASSES];

    LeafTimings() {
        for (int kind = 0; kind < KINDS.length; kind++) {
            for (int cls = 0; cls < SchedulingConfig.CLASSES; cls++) {
                queue[kind][cls] = timer("hedgerow.leaf.queue", "Time an answered request waited in the leaf's queue",
                        KINDS[kind], cls);
                service[kind][cls] = timer("hedgerow.leaf.service",
                        "Time from a worker taking an answered request to its answer (slices and waits between them"
                                + " included)", KINDS[kind], cls);
            }
        }
    }

    private Timer timer(String name, String description, String kind, int cls) {
        return Timer.builder(name)
                .description(description)
                .tag("kind", kind)
                .tag("class", SchedulingConfig.className(cls))
                .serviceLevelObjectives(BUCKETS)
                .register(registry);
    }

    /** Exports the timers through {@code exported} from now on. */
    public void bindTo(MeterRegistry exported) {
        registry.add(exported);
    }

    /** Records the times an answer carries; refusals and anything but a search or fetch answer are not timed. */
    void answered(Frame answer, int priority) {
        int cls = SchedulingConfig.classOf(priority);
        if (answer.hasResult()) {
            record(0, cls, answer.getResult().getQueueNanos(), answer.getResult().getServiceNanos());
        } else if (answer.hasFetchResult()) {
            record(1, cls, answer.getFetchResult().getQueueNanos(), answer.getFetchResult().getServiceNanos());
        }
    }

    private void record(int kind, int cls, long queueNanos, long serviceNanos) {
        queue[kind][cls].record(Math.max(0, queueNanos), TimeUnit.NANOSECONDS);
        service[kind][cls].record(Math.max(0, serviceNanos), TimeUnit.NANOSECONDS);
    }
}
