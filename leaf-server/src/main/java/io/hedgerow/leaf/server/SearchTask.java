package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.search.BadQueryException;
import io.hedgerow.leaf.search.PartitionSearcher;
import io.hedgerow.leaf.search.QueryCost;
import io.hedgerow.leaf.search.QueryCostEstimator;
import io.hedgerow.leaf.search.SlicedSearch;
import java.io.IOException;
import jdk.jfr.EventType;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollector;

/**
 * The query phase of one partition: top k ids and scores, and the total hit count. A tied request
 * (one with a twin on another leaf) tells the twin's leaf to drop the twin when it starts.
 *
 * <p><b>Cost first.</b> Before anything of the query is set up (rewrite, weight, scorers), the task
 * estimates what it will cost on its partition from the terms' statistics ({@link
 * PartitionSearcher#prepare}), which also enforces the expansion budget; the same pass over the
 * terms gives the query their term states, so its set-up does not look them up again. A search past the
 * expensive threshold moves to the expensive lane before it is set up, so it never holds a worker
 * kept for cheap work. The answer
 * reports the estimate and what the search cost ({@code SearchResponse.cost}), and the root learns
 * it per query, so the next copy of an expensive query is queued in the lane on arrival.
 *
 * <p><b>A cheap search runs in one pass.</b> With lanes on, a search estimated cheap runs whole on
 * the worker that took it: each segment scored in one window, as Lucene's own search does, reading
 * no clock while it runs (only the leaf's ticker, when it checks for a cancel or its deadline
 * between segments), and its CPU time from two readings, as its service starts and as it answers
 * ({@link TaskCpuTime}). So a search pays for slicing only when it is expected to be long.
 * What that gives up: a search the estimate calls cheap that turns out long holds its worker to the
 * end rather than moving to the lane after a slice (the estimate is an upper bound of the postings
 * read, so that takes a query whose cost is not in its postings). The same holds with slicing off
 * ({@code --slice=0}).
 *
 * <p><b>Inline (experimental, off by default).</b> With {@code --inline-cheap}, a search the root
 * knows to be cheap may run on the event loop that read it ({@link #runInline}), saving the hop to
 * a worker; if its estimate here says expensive it moves to the lane before it is set up, so an event
 * loop runs at most the estimate and a cheap search. Not yet measured: the lead measures it before
 * it is turned on anywhere.
 *
 * <p><b>Slices.</b> Otherwise, when the leaf slices searches ({@code --slice}), the search runs a
 * budget of work at a time, on the worker's CPU time ({@link SliceBudget}), the set-up counted in
 * the first. An expensive search moves to the lane (with lanes on); with lanes off, a search that
 * uses a whole slice yields to waiting work; see {@link #proceed}. The clock is read at the edges of
 * slices and of the windows of doc ids within them ({@link SlicedSearch}).
 */
final class SearchTask extends LeafTask {
    private static final EventType STRETCH_EVENTS = EventType.getEventType(SearchSliceEvent.class);
    private static final EventType TASK_EVENTS = EventType.getEventType(SearchTaskEvent.class);

    private final SearchRequest request;
    // Set by execute, read by the slices after it; each hand-over to another worker goes through the
    // scheduler's lock, which orders these writes before the reads. The budget is null for a search
    // run in one pass.
    private long startNanos;
    private long queueNanos;
    private SliceBudget budget;
    private QueryCost cost;
    private boolean expensive;
    /** The search, and the partition whose reader it holds until it answers. */
    private SlicedSearch<?, ? extends TopDocs> search;
    private PartitionSearcher partition;
    /**
     * Whether it runs on an event loop ({@link #runInline}), until it leaves it for the lane; and
     * the work clock there when it began (a worker measures a task itself, an event loop does not).
     */
    private boolean inline;
    private long inlineStartNanos;
    /** The running stretch's JFR event; null when the event is not recorded, or between stretches. */
    private SearchSliceEvent stretch;

    SearchTask(SearchRequest request, OutboundBatcher replyTo, LeafContext leaf, long receivedNanos) {
        super(request.getRequestId(), request.getBudgetNanos(), replyTo, leaf, receivedNanos);
        this.request = request;
    }

    SearchRequest request() {
        return request;
    }

    @Override
    void started() {
        if (request.hasTwin()) {
            leaf.peers().cancelTwin(request.getTwin().getLeafAddress(), key().rootId(), request.getTwin().getRequestId());
        }
    }

    /**
     * Whether it may run on the event loop that read it ({@link SchedulingConfig#inlineCheap()},
     * experimental): the root knows it to be cheap, it has no twin, and no fault can be injected
     * (an injected hold would hold the event loop).
     */
    boolean mayRunInline() {
        return leaf.scheduler().config().inlineCheap() && leaf.scheduler().config().isKnownCheap(costHint())
                && !request.hasTwin() && !leaf.faults().enabled();
    }

    /**
     * Runs the task on the calling event loop, which {@link SearchScheduler#tryStartInline} allowed.
     * A search estimated cheap runs there in one pass; one estimated expensive moves to the lane
     * before it is set up, as from a search worker.
     */
    void runInline() {
        inline = true;
        run();
    }

    @Override
    String logRequestId() {
        return request.getLogRequestId();
    }

    @Override
    int priority() {
        return request.getPriorityValue();
    }

    @Override
    long costHint() {
        return request.getCostHint();
    }

    /** The clock of a search run in one pass: never read (the budget is unlimited). */
    private static final Ticker NO_CLOCK = () -> 0;

    /**
     * Estimates the cost, prepares the search (holding the partition's reader until it answers) and
     * runs it: in one pass if it is cheap, in slices otherwise.
     */
    @Override
    Frame execute(long startNanos, long queueNanos) {
        this.startNanos = startNanos;
        this.queueNanos = queueNanos;
        beginStretch();
        SearchScheduler scheduler = leaf.scheduler();
        if (inline) {
            inlineStartNanos = scheduler.cpuTime().workClock().nanoTime();
        }
        PartitionSearcher partition = leaf.partitions().acquire(request.getPartition());
        if (partition == null) {
            return answer(failure(Status.NOT_ASSIGNED, "partition " + request.getPartition() + " is not open on this leaf"));
        }
        boolean onePass;
        try {
            Query query = partition.queryOf(request);
            QueryCostEstimator.Prepared prepared = partition.prepare(query, request);
            cost = prepared.cost();
            expensive = scheduler.config().isExpensive(cost.estimate());
            // With lanes off every estimate is "cheap": then only slicing off means one pass.
            onePass = !expensive && (scheduler.config().lanes() || leaf.sliceNanos() == 0);
            if (onePass) {
                search = partition.startSliced(prepared.query(), request, this, NO_CLOCK, SlicedSearch.Windows.WHOLE);
            } else {
                // From when the task began, so the parsing and the estimate count against the first slice.
                TaskCpuTime cpuTime = scheduler.cpuTime();
                budget = new SliceBudget(cpuTime.workClock(), leaf.sliceNanos(), cpuTime.taskStartNanos());
                search = partition.startSliced(prepared.query(), request, this, cpuTime.workClock(),
                        SlicedSearch.Windows.DEFAULT);
            }
        } catch (BadQueryException e) {
            Partitions.release(partition);
            return answer(failure(Status.BAD_QUERY, e.getMessage()));
        } catch (IOException | RuntimeException e) {
            Partitions.release(partition);
            return answer(failure(Status.ERROR, e.toString()));
        }
        this.partition = partition;
        if (expensive) {
            leaf.counters().expensiveSearches.increment();
        }
        return onePass ? runWhole() : proceed();
    }

    /** Runs a cheap search to its end on this worker, in one step with no budget. */
    private Frame runWhole() {
        try {
            TopDocs top = search.run();
            return answer(partition.response(request, top, search.cutShort()));
        } catch (IndexSearcher.TooManyClauses e) {
            return answer(failure(Status.BAD_QUERY, PartitionSearcher.expandedPastClauseLimit(e).getMessage()));
        } catch (IOException | RuntimeException e) {
            return answer(failure(Status.ERROR, e.toString()));
        } finally {
            Partitions.release(partition);
        }
    }

    /**
     * Runs slices until the search ends or it yields. On a search worker (with lanes on), an
     * expensive search moves to the lane before it runs (cheap ones do not come here: they run in
     * one pass); with lanes off, a slice that ends while work of its class or a higher one
     * waits yields to it. On a lane worker, slices are the lane's (shorter), and the search pauses
     * when lane work of a higher class or cheap work of its class or higher runs or waits ({@link
     * SearchScheduler#shouldYield}), keeping its place in the lane.
     */
    @Override
    Frame proceed() {
        budget.resumed();
        if (stretch == null) {
            beginStretch();
        }
        boolean yielded = false;
        try {
            SearchScheduler scheduler = leaf.scheduler();
            if (scheduler.onLaneWorker()) {
                budget.useLaneSlices(scheduler.config().laneSlice().toNanos());
            }
            if (expensive && (inline || !scheduler.runsExpensiveWork())) {
                yielded = park("to lane");
                if (yielded) {
                    return null;
                }
            }
            while (search.step(budget.sliceLeft())) {
                if (!scheduler.runsExpensiveWork()) {
                    // A whole slice on a search worker and not done: long, whatever its estimate said. Not
                    // reached while cheap searches run in one pass (see the class comment); kept so a
                    // search sliced on a search worker with lanes on still moves.
                    leaf.counters().movedToLane.increment();
                    expensive = true;
                    yielded = park("to lane");
                } else if (scheduler.shouldYield(priority())) {
                    leaf.counters().slicesYielded.increment();
                    yielded = park("yielded");
                }
                if (yielded) {
                    return null;
                }
                // Not parked (the scheduler closed: no worker would take the rest), or nothing waits.
                budget.nextSlice();
            }
            return answer(partition.response(request, search.result(), search.cutShort()));
        } catch (IndexSearcher.TooManyClauses e) {
            return answer(failure(Status.BAD_QUERY, PartitionSearcher.expandedPastClauseLimit(e).getMessage()));
        } catch (IOException | RuntimeException e) {
            return answer(failure(Status.ERROR, e.toString()));
        } finally {
            if (!yielded) {
                Partitions.release(partition);
            }
        }
    }

    /** Queues the rest of the search; true when this thread must touch nothing of the task any more. */
    private boolean park(String why) {
        // Before the hand-over: after it, another worker may resume the task.
        inline = false;
        endStretch(why);
        return yieldWorker(expensive);
    }

    private void beginStretch() {
        if (STRETCH_EVENTS.isEnabled()) {
            stretch = new SearchSliceEvent();
            stretch.begin();
        }
    }

    /** The search leaves its worker: the stretch's CPU time is added, and its event (if recorded) ends. */
    private void endStretch(String why) {
        long cpuBefore = budget.cpuNanos();
        budget.paused();
        endStretch(why, budget.cpuNanos() - cpuBefore);
    }

    /** The stretch's event (if recorded) ends, having taken {@code cpuNanos} of work-clock time. */
    private void endStretch(String why, long cpuNanos) {
        SearchSliceEvent ending = stretch;
        stretch = null;
        if (ending == null) {
            return;
        }
        ending.end();
        if (ending.shouldCommit()) {
            ending.requestId = request.getRequestId();
            ending.partition = request.getPartition();
            ending.priority = priority();
            ending.expensive = expensive;
            ending.stretch = budget == null ? 1 : budget.slices();
            ending.cpuNanos = cpuNanos;
            ending.ended = why;
            ending.commit();
        }
    }

    @Override
    void parkedDropped() {
        Partitions.release(partition);
    }

    private Frame answer(SearchResponse.Builder response) {
        long cpuNanos;
        int slices;
        if (budget != null) {
            endStretch("answered");
            cpuNanos = budget.cpuNanos();
            slices = budget.slices();
        } else {
            // In one pass (or before the search began): the work clock since its service started.
            TaskCpuTime cpuTime = leaf.scheduler().cpuTime();
            cpuNanos = inline ? cpuTime.workClock().nanoTime() - inlineStartNanos : cpuTime.taskCpuNanos();
            slices = 1;
            endStretch("answered", cpuNanos);
        }
        if (response.getStatus() == Status.OK) {
            response.setCost(io.hedgerow.common.wire.proto.QueryCost.newBuilder()
                    .setEstimate(cost == null ? 0 : cost.estimate())
                    .setCpuNanos(cpuNanos)
                    .setSlices(slices)
                    .setExpensive(expensive));
        }
        long serviceNanos = leaf.ticker().nanoTime() - startNanos;
        response.setQueueNanos(queueNanos).setServiceNanos(serviceNanos)
                .setQueueLength(leaf.scheduler().queued());
        if (TASK_EVENTS.isEnabled()) {
            SearchTaskEvent event = new SearchTaskEvent();
            event.requestId = request.getRequestId();
            event.partition = request.getPartition();
            event.priority = priority();
            event.estimate = cost == null ? 0 : cost.estimate();
            event.costHint = request.getCostHint();
            event.expensive = expensive;
            event.queueNanos = queueNanos;
            event.serviceNanos = serviceNanos;
            event.cpuNanos = cpuNanos;
            event.stretches = slices;
            event.commit();
        }
        return Frame.newBuilder().setResult(response).build();
    }

    @Override
    Frame refusal(Status status, String detail) {
        return Frame.newBuilder().setResult(failure(status, detail)).build();
    }

    private SearchResponse.Builder failure(Status status, String detail) {
        return SearchResponse.newBuilder()
                .setRequestId(request.getRequestId())
                .setPartition(request.getPartition())
                .setStatus(status)
                .setError(detail);
    }
}
