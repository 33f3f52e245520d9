package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Priority;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Option;

/** The leaf's scheduling flags: class queues, the starvation guard, slices and the expensive lane. */
final class SchedulingFlags {
    @Option(names = "--queue-depth", paramLabel = "CLASS=N[,CLASS=N...]", split = ",",
            description = "How many sub-requests of a scheduling class (interactive, backup, batch, shadow) may wait"
                    + " for a worker; one more is answered busy at once, so the root tries another replica"
                    + " (default: interactive=256,backup=64,batch=64,shadow=16).")
    private Map<String, Integer> queueDepths = new LinkedHashMap<>();

    @Option(names = "--lower-class-every", paramLabel = "N", defaultValue = "10",
            description = "Starvation guard: while lower-class work (e.g. batch) waits behind higher-class work, one"
                    + " turn in N goes to the oldest lower-class task; 0 for strict priority (default: ${DEFAULT-VALUE}).")
    private int lowerClassEvery;

    // On by default, with the expensive lane: measured over five rounds, 2% expensive queries left
    // the cheap p99 1.44x its cheap-only baseline (13x that with both off), and closed-loop
    // throughput 7% below both off, inside the spread (docs/benchmarks/time-slicing.md).
    @Option(names = "--slice", paramLabel = "DURATION", converter = LeafCommand.DurationConverter.class, defaultValue = "1ms",
            description = "Run searches in slices of this much work, measured on the worker's CPU time (e.g. 1ms), so"
                    + " expensive queries do not hold up cheap ones: with lanes, the expensive lane's searches run in"
                    + " slices (see --lane-slice) and a search estimated cheap runs whole, in one pass; with"
                    + " --expensive-cost=0, every search runs in slices and one that uses a whole slice goes back in"
                    + " the queue behind waiting work. 0s runs every search to its end (default: ${DEFAULT-VALUE}).")
    private Duration slice;

    @Option(names = "--expensive-cost", paramLabel = "N", defaultValue = "60000",
            description = "A search whose estimated cost on its partition (postings its terms and expansions read) is"
                    + " at least N runs in the expensive lane (one below runs whole, on a search worker): max(1, workers - 1)"
                    + " threads of its own that never take cheap work and step aside for it (see --lane-slice); 0 turns"
                    + " lanes off (default: ${DEFAULT-VALUE}).")
    private long expensiveCost;

    @Option(names = "--lane-slice", paramLabel = "DURATION", converter = LeafCommand.DurationConverter.class,
            defaultValue = "1ms",
            description = "With --slice: a search in the expensive lane runs slices of this much CPU time, at the end"
                    + " of each stepping aside while cheap work of its class or higher runs or waits; shorter slices cost"
                    + " CPU (default: ${DEFAULT-VALUE}).")
    private Duration laneSlice;

    @Option(names = "--continuation-aging", paramLabel = "DURATION", converter = LeafCommand.DurationConverter.class,
            defaultValue = "10ms",
            description = "A sliced search's continuation waits behind fresh work of its class for at most this long,"
                    + " then goes ahead of it; with lanes, the most cheap work holds the lane back before it runs a"
                    + " slice anyway (default: ${DEFAULT-VALUE}).")
    private Duration continuationAging;

    // Off until measured: it saves a thread hop per cheap search but runs Lucene on an event loop.
    @Option(names = "--inline-cheap", defaultValue = "false",
            description = "Experimental: with lanes on, a search the root already knows to be cheap (its cost hint is"
                    + " below --expensive-cost) runs on the connection's event loop, without a hop to a worker, when"
                    + " nothing is queued and a search worker is idle; one whose estimate here says expensive moves to"
                    + " the lane before it is set up. Never with --fault-injection, whose holds would block the event loop"
                    + " (default: ${DEFAULT-VALUE}).")
    private boolean inlineCheap;

    /** The slice of a search's work, 0 for none. */
    Duration slice() {
        return slice;
    }

    /** The queue depths, starvation guard, lanes and aging the flags ask for. */
    SchedulingConfig scheduling() {
        SchedulingConfig scheduling = SchedulingConfig.defaults().withLowerClassEvery(lowerClassEvery)
                .withExpensiveCost(expensiveCost).withContinuationAging(continuationAging)
                .withLaneSlice(laneSlice).withInlineCheap(inlineCheap);
        for (var depth : queueDepths.entrySet()) {
            scheduling = scheduling.withDepth(priorityNamed(depth.getKey()), depth.getValue());
        }
        return scheduling;
    }

    private static Priority priorityNamed(String name) {
        for (int i = 0; i < SchedulingConfig.CLASSES; i++) {
            if (SchedulingConfig.className(i).equals(name.toLowerCase(Locale.ROOT))) {
                return Priority.forNumber(i);
            }
        }
        throw new IllegalArgumentException("--queue-depth: '" + name
                + "' is not a scheduling class (expected: interactive, backup, batch or shadow)");
    }
}
