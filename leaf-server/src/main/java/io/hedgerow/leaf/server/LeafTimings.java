package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Frame;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The queue and service times of the searches and fetches this leaf answered, per kind, as
 * {@code hedgerow_leaf_queue_seconds} and {@code hedgerow_leaf_service_seconds} histograms: what
 * the leaf measured itself and wrote in each answer, where the root's timers add the network and
 * its own queues. A dozen fixed buckets, as the root's sub-request timers have: every answer
 * records, and a full percentile histogram's binary search per record costs CPU on the answer path.
 *
 * <p>Recorded where the answers are written ({@link OutboundBatcher}, on the connection's event
 * loop), not on the worker: the worker's time after its task's last reading of the work clock is
 * charged to no task ({@link TaskCpuTime}) and delays its next one. So an answer carries no
 * scheduling class, and the times are per kind only; the queue depth is per class
 * ({@code hedgerow_leaf_queue_depth}).
 *
 * <p>The timers live in a registry of their own that holds nothing until {@link #bindTo} adds the
 * leaf's exported registry to it (Micrometer's composite), so a leaf made by a test records into
 * nothing.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #answered} may be called from any thread: Micrometer's
 * timers are lock-free for recording. {@link #bindTo} may be called once, before or after answers.
 */
public final class LeafTimings {
    private static final Duration[] BUCKETS = {
            Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000), Duration.ofMillis(1),
            Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(20),
            Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(500),
            Duration.ofSeconds(1), Duration.ofSeconds(5)};

    private final CompositeMeterRegistry registry = new CompositeMeterRegistry();
    private final Timer searchQueue = timer("hedgerow.leaf.queue", "Time an answered request waited in the leaf's queue",
            "search");
    private final Timer searchService = timer("hedgerow.leaf.service", "Time from a worker taking an answered request"
            + " to its answer (slices and the waits between them included)", "search");
    private final Timer fetchQueue = timer("hedgerow.leaf.queue", "Time an answered request waited in the leaf's queue",
            "fetch");
    private final Timer fetchService = timer("hedgerow.leaf.service", "Time from a worker taking an answered request"
            + " to its answer (slices and the waits between them included)", "fetch");

    private final ServedLoad served;

    /** @param served also told each search answer's service time, by partition */
    LeafTimings(ServedLoad served) {
        this.served = served;
    }

    private Timer timer(String name, String description, String kind) {
        return Timer.builder(name)
                .description(description)
                .tag("kind", kind)
                .serviceLevelObjectives(BUCKETS)
                .register(registry);
    }

    /** Exports the timers through {@code exported} from now on. */
    public void bindTo(MeterRegistry exported) {
        registry.add(exported);
    }

    /**
     * Records the times an answer carries (and a search's service time in its partition's
     * {@link ServedLoad}). Only answers the leaf ran have a service time: refusals
     * (cancelled, expired, busy, not assigned) and other frames are not timed.
     */
    void answered(Frame frame) {
        if (frame.hasResult() && frame.getResult().getServiceNanos() > 0) {
            record(searchQueue, searchService, frame.getResult().getQueueNanos(), frame.getResult().getServiceNanos());
            served.record(frame.getResult().getPartition(), frame.getResult().getServiceNanos());
        } else if (frame.hasFetchResult() && frame.getFetchResult().getServiceNanos() > 0) {
            record(fetchQueue, fetchService, frame.getFetchResult().getQueueNanos(),
                    frame.getFetchResult().getServiceNanos());
        }
    }

    private static void record(Timer queue, Timer service, long queueNanos, long serviceNanos) {
        queue.record(Math.max(0, queueNanos), TimeUnit.NANOSECONDS);
        service.record(serviceNanos, TimeUnit.NANOSECONDS);
    }
}
