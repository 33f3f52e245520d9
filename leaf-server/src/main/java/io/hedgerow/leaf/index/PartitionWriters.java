package io.hedgerow.leaf.index;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * The Lucene writers of one build, one per partition, fed by a few indexing threads. The caller
 * maps and routes documents; analysis and writing, the expensive part, run on the threads.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #add}, {@link #commit} and {@link #close} are called
 * by one thread, the builder's. Partition {@code p} is written only by thread {@code p % threads},
 * in the order its documents were added, and merges run on that same thread
 * ({@link SerialMergeScheduler}), so each partition's documents, doc ids and segments depend only
 * on the input, never on thread timing. At most {@value #BATCHES_PER_THREAD} batches per thread
 * wait in memory; {@link #add} blocks when they are full. The first failure of any thread stops
 * all of them and is rethrown from the next {@link #add} or from {@link #commit}. Closing without
 * a successful {@link #commit} rolls every writer back, leaving no commit behind.
 */
final class PartitionWriters implements Closeable {
    private static final int BATCH_DOCS = 256;
    private static final long BATCH_CHARS = 1 << 20;
    private static final int BATCHES_PER_THREAD = 4;

    private record Pending(int partition, Term id, Document doc) {
    }

    private final PartitionStore store;
    private final Directory[] directories;
    private final IndexWriter[] writers;
    private final ExecutorService[] threads;
    private final List<List<Pending>> batches = new ArrayList<>();
    private final long[] batchChars;
    private final Semaphore batchesInFlight;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean aborted;
    private boolean committed;

    private PartitionWriters(PartitionStore store, int partitions, int threadCount) {
        this.store = store;
        this.directories = new Directory[partitions];
        this.writers = new IndexWriter[partitions];
        this.threads = new ExecutorService[threadCount];
        for (int t = 0; t < threadCount; t++) {
            threads[t] = Executors.newSingleThreadExecutor(
                    Thread.ofPlatform().name("hedgerow-index-" + t).daemon(true).factory());
            batches.add(new ArrayList<>());
        }
        this.batchChars = new long[threadCount];
        this.batchesInFlight = new Semaphore(threadCount * BATCHES_PER_THREAD);
    }

    /**
     * Creates an empty Lucene index in each partition directory of {@code build} in {@code store}
     * (they must not hold one yet) and opens a writer on it.
     *
     * @param ramBufferMb shared by all writers; each gets at least 1 MB
     */
    static PartitionWriters open(PartitionStore store, String build, int partitions, Analyzer analyzer, int threads,
            double ramBufferMb) throws IOException {
        PartitionWriters writers = new PartitionWriters(store, partitions, Math.min(threads, partitions));
        try {
            double perWriterMb = Math.max(1.0, ramBufferMb / partitions);
            for (int p = 0; p < partitions; p++) {
                writers.directories[p] = FSDirectory.open(Files.createDirectories(
                        store.buildDir(build).resolve(PartitionStore.partitionName(p))));
                IndexWriterConfig config = new IndexWriterConfig(analyzer)
                        .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
                        .setCodec(new HedgerowCodec())
                        .setRAMBufferSizeMB(perWriterMb)
                        .setMergeScheduler(new SerialMergeScheduler())
                        .setCommitOnClose(false);
                writers.writers[p] = new IndexWriter(writers.directories[p], config);
            }
            return writers;
        } catch (IOException | RuntimeException e) {
            try {
                writers.close();
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Queues {@code doc} for {@code partition}, replacing any earlier document with the same id.
     *
     * @param approxChars the document's size, to bound the memory that queued documents take
     */
    void add(int partition, String id, Document doc, long approxChars) throws IOException {
        throwIfFailed();
        int thread = partition % threads.length;
        batches.get(thread).add(new Pending(partition, new Term(IndexConfig.ID_FIELD, id), doc));
        batchChars[thread] += approxChars;
        if (batches.get(thread).size() >= BATCH_DOCS || batchChars[thread] >= BATCH_CHARS) {
            submitBatch(thread);
        }
    }

    private void submitBatch(int thread) throws IOException {
        List<Pending> batch = batches.get(thread);
        batches.set(thread, new ArrayList<>());
        batchChars[thread] = 0;
        try {
            batchesInFlight.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while indexing into " + store.dir());
        }
        threads[thread].execute(() -> {
            try {
                if (failure.get() == null && !aborted) {
                    for (Pending pending : batch) {
                        writers[pending.partition()].updateDocument(pending.id(), pending.doc());
                    }
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            } finally {
                batchesInFlight.release();
            }
        });
    }

    /**
     * Writes what is queued, force-merges each partition to one segment when asked, commits and
     * closes every writer.
     *
     * @return documents per partition, by partition number
     */
    List<Long> commit(boolean forceMerge) throws IOException {
        for (int t = 0; t < threads.length; t++) {
            if (!batches.get(t).isEmpty()) {
                submitBatch(t);
            }
        }
        List<Future<List<Long>>> results = new ArrayList<>();
        for (int t = 0; t < threads.length; t++) {
            int thread = t;
            results.add(threads[t].submit(() -> commitPartitionsOf(thread, forceMerge)));
        }
        long[] counts = new long[writers.length];
        for (int t = 0; t < threads.length; t++) {
            List<Long> ofThread = await(results.get(t));
            for (int i = 0; i < ofThread.size(); i++) {
                counts[t + i * threads.length] = ofThread.get(i);
            }
        }
        throwIfFailed();
        committed = true;
        List<Long> byPartition = new ArrayList<>(counts.length);
        for (long count : counts) {
            byPartition.add(count);
        }
        return byPartition;
    }

    private List<Long> commitPartitionsOf(int thread, boolean forceMerge) throws IOException {
        List<Long> counts = new ArrayList<>();
        if (failure.get() != null || aborted) {
            return counts;
        }
        for (int p = thread; p < writers.length; p += threads.length) {
            if (forceMerge) {
                writers[p].forceMerge(1);
            }
            writers[p].commit();
            counts.add((long) writers[p].getDocStats().numDocs);
            writers[p].close();
        }
        return counts;
    }

    private List<Long> await(Future<List<Long>> result) throws IOException {
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while committing " + store.dir());
        } catch (ExecutionException e) {
            failure.compareAndSet(null, e.getCause());
            throw failed(failure.get());
        }
    }

    private void throwIfFailed() throws IOException {
        Throwable t = failure.get();
        if (t != null) {
            throw failed(t);
        }
    }

    /** The exception to throw for a thread's failure; an {@link Error} is rethrown as it is. */
    private IOException failed(Throwable t) {
        if (t instanceof Error error) {
            throw error;
        }
        return new IOException("indexing into " + store.dir() + " failed: " + t, t);
    }

    /** Stops the threads; rolls back every writer unless {@link #commit} succeeded. */
    @Override
    public void close() throws IOException {
        aborted = !committed;
        for (ExecutorService thread : threads) {
            thread.close(); // queued batches see aborted and skip
        }
        IOException first = null;
        for (int p = 0; p < writers.length; p++) {
            try {
                if (writers[p] != null && writers[p].isOpen()) {
                    writers[p].rollback();
                }
                if (directories[p] != null) {
                    directories[p].close();
                }
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
