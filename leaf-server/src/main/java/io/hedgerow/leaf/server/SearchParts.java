package io.hedgerow.leaf.server;

import java.util.List;

/**
 * The cheap parts of one multi-partition request ({@code LeafSearchRequest}): queued once, taken
 * once, and run one after another on the worker that takes them, instead of one queued task, one
 * scheduler round trip and one thread hop per partition.
 *
 * <p>Each part stays its own {@link SearchTask}, so nothing about it changes but the queueing: it is
 * registered for cancels on its own, answered by its own frame, its queue time runs until its own
 * start (a part behind others waits for them, and says so), its CPU time is measured from its own
 * service start ({@link TaskCpuTime}), and a part estimated expensive on the worker moves to the
 * lane alone, as a single search does, while the worker goes on with the next part. A part that a
 * cancel (or its connection closing) dropped while it waited is skipped: {@link LeafTask#run()}
 * does nothing for a task no longer queued, and the cancel answered it.
 *
 * <p>The task takes one place in its class's queue to be admitted (refused BUSY, every part, when
 * the class is full) and then counts for each of its parts in the queue's depth and in the queue
 * length every answer reports ({@link ClassQueues}), until a worker takes it: a part a cancel
 * dropped meanwhile still counts until then.
 *
 * <p>The parts queue under the highest class among them and the latest deadline (a root sends one
 * search's primaries together, which share both); a part whose own deadline has passed when its
 * turn comes answers EXPIRED, as on a dequeue. If the latest deadline passes while they wait, every
 * part still queued answers EXPIRED.
 *
 * <p><b>Assumptions and guarantees.</b> The scheduler runs it, or expires it, once, on one worker;
 * each part's own state settles races with its cancels, exactly as for a task queued alone.
 */
final class SearchParts implements Runnable {
    private static final System.Logger LOG = System.getLogger(SearchParts.class.getName());

    private final List<SearchTask> parts;
    private final int priority;
    private final long deadlineNanos;

    /** @param parts two or more registered, queued search tasks of one request */
    SearchParts(List<SearchTask> parts) {
        if (parts.size() < 2) {
            throw new IllegalArgumentException("parts: " + parts.size() + " (expected: >= 2; one goes alone)");
        }
        this.parts = List.copyOf(parts);
        int highest = Integer.MAX_VALUE;
        long latest = this.parts.get(0).deadlineNanos();
        boolean unbounded = false;
        for (SearchTask part : this.parts) {
            highest = Math.min(highest, part.priority());
            if (!part.hasDeadline()) {
                unbounded = true;
            } else if (part.deadlineNanos() - latest > 0) {
                latest = part.deadlineNanos();
            }
        }
        this.priority = highest;
        this.deadlineNanos = unbounded ? ClassQueues.NO_DEADLINE : latest;
    }

    /** The class the parts queue under: the highest of theirs (a {@code Priority} number, lowest first). */
    int priority() {
        return priority;
    }

    /** The latest of the parts' deadlines, or {@link ClassQueues#NO_DEADLINE} when one has none. */
    long deadlineNanos() {
        return deadlineNanos;
    }

    @Override
    public void run() {
        for (SearchTask part : parts) {
            try {
                part.run();
            } catch (RuntimeException e) {
                // A task answers its own errors; reaching here is a bug, but the other parts still run.
                LOG.log(System.Logger.Level.ERROR, "search part failed", e);
            }
        }
    }

    /** The latest deadline passed while the parts waited: each part still queued answers EXPIRED. */
    void expireQueued() {
        for (SearchTask part : parts) {
            part.expireQueued();
        }
    }
}
