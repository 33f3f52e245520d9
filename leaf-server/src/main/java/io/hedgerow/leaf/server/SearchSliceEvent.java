package io.hedgerow.leaf.server;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A JFR event per stretch of a search on one worker, from the worker taking it to the search
 * answering, yielding or parking: its duration is the wall time on the worker, {@link #cpuNanos}
 * the worker's CPU time in it, so their difference is the time the operating system kept the worker
 * off a core. Off unless a recording enables it ({@code jcmd <leaf pid> JFR.start}); disabled, it
 * costs one check of a flag per stretch.
 */
@Name("io.hedgerow.leaf.SearchSlice")
@Label("Search slice")
@Category({"Hedgerow", "Leaf"})
@Description("One stretch of a search on a worker: wall time (the duration) and CPU time")
@StackTrace(false)
final class SearchSliceEvent extends Event {
    @Label("Request id")
    long requestId;

    @Label("Partition")
    int partition;

    @Label("Priority")
    int priority;

    @Label("Expensive")
    boolean expensive;

    @Label("Stretch")
    @Description("1 for the stretch that started the search, then one more for each time a worker took it again")
    int stretch;

    @Label("CPU time")
    @Timespan(Timespan.NANOSECONDS)
    long cpuNanos;

    @Label("Ended")
    @Description("answered, yielded (to waiting work, or a lane search stepping aside for cheap work) or to lane (an expensive search leaving a search worker)")
    String ended;
}
