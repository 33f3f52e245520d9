package io.hedgerow.root.write;

import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.root.write.PartitionWriter.Pending;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The queued writes of one partition, taken a batch at a time: a batch holds at most
 * {@link WriteSettings#maxBatchOps} writes and {@link WriteSettings#maxBatchBytes} of them (at least
 * one write), so that no request outgrows the leaves' frame, and the queue holds at most
 * {@link WriteSettings#maxQueuedOps} writes rather than buffer without bound. {@link #chunks} cuts any
 * list of ops the same way (a catch-up's copies of a log).
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: its {@link PartitionWriter} calls it under
 * its own monitor. Writes leave in the order they were added.
 */
final class WriteBatches {
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private final WriteSettings settings;

    WriteBatches(WriteSettings settings) {
        this.settings = settings;
    }

    /** Queues a write; false when the queue is full (the caller answers OVERLOADED). */
    boolean add(Pending pending) {
        if (queue.size() >= settings.maxQueuedOps()) {
            return false;
        }
        queue.add(pending);
        return true;
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Takes every queued write, in order, leaving the queue empty. */
    List<Pending> drain() {
        List<Pending> all = new ArrayList<>(queue);
        queue.clear();
        return all;
    }

    /**
     * The next batch: up to {@link WriteSettings#maxBatchOps} writes and
     * {@link WriteSettings#maxBatchBytes}, at least one.
     */
    List<Pending> next() {
        List<Pending> batch = new ArrayList<>();
        long bytes = 0;
        while (!queue.isEmpty() && batch.size() < settings.maxBatchOps()) {
            long size = encodedSize(queue.peek().op());
            if (!batch.isEmpty() && bytes + size > settings.maxBatchBytes()) {
                break;
            }
            bytes += size;
            batch.add(queue.poll());
        }
        return batch;
    }

    /**
     * {@code ops} in consecutive chunks of at most {@code maxOps} ops and {@code maxBytes} of encoded
     * ops each (an op larger than that alone in its chunk), so that no request outgrows a frame.
     */
    static List<List<WriteOp>> chunks(List<WriteOp> ops, int maxOps, long maxBytes) {
        List<List<WriteOp>> chunks = new ArrayList<>();
        int from = 0;
        while (from < ops.size()) {
            int to = from;
            long bytes = 0;
            while (to < ops.size() && to - from < maxOps) {
                long size = encodedSize(ops.get(to));
                if (to > from && bytes + size > maxBytes) {
                    break;
                }
                bytes += size;
                to++;
            }
            chunks.add(ops.subList(from, to));
            from = to;
        }
        return chunks;
    }

    /** The bytes {@code op} takes in a request: its own, and its field tag and length, roughly. */
    private static long encodedSize(WriteOp op) {
        return op.getSerializedSize() + 8L;
    }
}
