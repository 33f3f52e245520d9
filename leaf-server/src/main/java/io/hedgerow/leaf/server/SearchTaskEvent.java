package io.hedgerow.leaf.server;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A JFR event per search sub-request a leaf answered, committed with its answer: how long it waited
 * for a worker, how long it took from then, the CPU it used and in how many stretches, and whether
 * it ran in the expensive lane. Off unless a recording enables it; see {@link SearchSliceEvent}.
 */
@Name("io.hedgerow.leaf.SearchTask")
@Label("Search task")
@Category({"Hedgerow", "Leaf"})
@Description("One search sub-request: queue wait, service time, CPU time, slices, cost")
@StackTrace(false)
final class SearchTaskEvent extends Event {
    @Label("Request id")
    long requestId;

    @Label("Partition")
    int partition;

    @Label("Priority")
    int priority;

    @Label("Cost estimate")
    long estimate;

    @Label("Cost hint")
    long costHint;

    @Label("Expensive")
    boolean expensive;

    @Label("Queue")
    @Timespan(Timespan.NANOSECONDS)
    long queueNanos;

    @Label("Service")
    @Timespan(Timespan.NANOSECONDS)
    long serviceNanos;

    @Label("CPU time")
    @Timespan(Timespan.NANOSECONDS)
    long cpuNanos;

    @Label("Stretches")
    int stretches;
}
