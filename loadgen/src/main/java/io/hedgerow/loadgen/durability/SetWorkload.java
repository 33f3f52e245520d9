package io.hedgerow.loadgen.durability;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.loadgen.durability.DocumentClient.Answer;
import io.hedgerow.loadgen.durability.Op.Kind;
import io.hedgerow.loadgen.durability.Op.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Jepsen's set workload over the document routes: {@code clients} closed-loop clients add documents
 * with new, unique ids ({@code <run>-<client>-<n>}) and delete documents whose add was
 * acknowledged, each id at most once, and record every invocation and its outcome in a
 * {@link History}. An id is never added again after its delete, so at the end each id has one
 * expected state: present (acknowledged add, no delete that may have happened) or absent
 * (acknowledged delete).
 *
 * <p>No retries on one root: a retried write would blur which attempt an acknowledgement belongs to.
 * With several roots a write that one root did not take goes to the next ({@link FailoverClient}),
 * and counts as indeterminate when the first may still apply it. After an
 * answer other than OK a client waits {@link #PAUSE_AFTER_ERROR_MILLIS} before its next operation,
 * so a cluster that is down (connection refused at once) is not met with a hot loop of new ids,
 * each of which the final reads must then read back.
 *
 * <p><b>Assumptions and guarantees.</b> Each client is one platform thread with its own
 * {@link Random} (seeded from the run's seed and its number), so the choice of operations is
 * repeatable; which ids end up deleted depends on the timing of acknowledgements. The pool of
 * deletable ids is a lock-free queue; the history takes one lock per entry.
 */
public final class SetWorkload {
    static final long PAUSE_AFTER_ERROR_MILLIS = 250;

    private final FailoverClient client;
    private final History history;
    private final Ticker ticker;
    private final long startNanos;
    private final String runTag;
    private final int clients;
    private final double deleteShare;
    private final long seed;
    private final ConcurrentLinkedQueue<String> deletable = new ConcurrentLinkedQueue<>();

    /**
     * @param runTag      prefix of every id, unique to the run, so runs on one cluster never share ids
     * @param deleteShare the share of operations that are deletes, when an acknowledged id is there to delete
     * @param startNanos  the run's start on {@code ticker}: history times count from it
     */
    public SetWorkload(FailoverClient client, History history, Ticker ticker, long startNanos, String runTag, int clients,
            double deleteShare, long seed) {
        if (clients < 1) {
            throw new IllegalArgumentException("clients: " + clients + " (expected: >= 1)");
        }
        if (!(deleteShare >= 0 && deleteShare < 1)) {
            throw new IllegalArgumentException("deleteShare: " + deleteShare + " (expected: >= 0 and < 1)");
        }
        if (!runTag.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("runTag: '" + runTag + "' (expected: letters, digits, '_', '.', '-')");
        }
        this.client = client;
        this.history = history;
        this.ticker = ticker;
        this.startNanos = startNanos;
        this.runTag = runTag;
        this.clients = clients;
        this.deleteShare = deleteShare;
        this.seed = seed;
    }

    /** Runs every client until {@code endNanos} on the ticker (each finishes the operation it is in). */
    public void runUntil(long endNanos) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int process = c;
            threads.add(Thread.ofPlatform().name("set-client-" + c).start(() -> runClient(process, endNanos)));
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private void runClient(int process, long endNanos) {
        Random random = new Random(seed * 31 + process);
        long next = 0;
        while (ticker.nanoTime() < endNanos && !Thread.currentThread().isInterrupted()) {
            String victim = random.nextDouble() < deleteShare ? deletable.poll() : null;
            Answer answer;
            if (victim != null) {
                answer = perform(process, Kind.DELETE, victim, () -> client.delete(process, victim));
            } else {
                String id = runTag + "-" + process + "-" + next++;
                answer = perform(process, Kind.ADD, id, () -> client.add(process, id, body(id)));
                if (answer.type() == Type.OK) {
                    deletable.add(id);
                }
            }
            if (answer.type() != Type.OK) {
                try {
                    Thread.sleep(PAUSE_AFTER_ERROR_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private Answer perform(int process, Kind kind, String id, java.util.function.Supplier<Answer> call) {
        history.add(Op.invoke(process, kind, id, ticker.nanoTime() - startNanos));
        Answer answer = call.get();
        history.add(Op.complete(process, answer.type(), kind, id, ticker.nanoTime() - startNanos, answer.detail()));
        return answer;
    }

    /** A small document that names its id, so a read can be traced to the write. */
    static String body(String id) {
        return "{\"title\": \"durability " + id + "\", \"body\": \"set workload document " + id + "\"}";
    }
}
