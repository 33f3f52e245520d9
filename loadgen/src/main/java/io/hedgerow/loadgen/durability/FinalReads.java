package io.hedgerow.loadgen.durability;

import io.hedgerow.loadgen.durability.DocumentClient.Presence;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The end of a run: once the faults are healed, waits for every root to say it is ready, then reads
 * every id by {@code GET /documents/{id}} through whichever root answers (realtime: it sees every acknowledged write, refreshed or
 * not). A read that gets neither 200 nor 404 (a partition still without a primary) is tried again
 * until {@code patience} has passed since the reads began; what is still unreadable then is
 * reported as such, never guessed.
 */
public final class FinalReads {
    private static final Duration RETRY_PAUSE = Duration.ofMillis(500);

    private final FailoverClient client;
    private final List<URI> roots;
    private final Duration patience;
    private final int threads;

    /** @param roots every root, for {@link #awaitReady}; reads go through {@code client}, to any root that answers */
    public FinalReads(FailoverClient client, List<URI> roots, Duration patience, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads: " + threads + " (expected: >= 1)");
        }
        this.client = client;
        if (roots.isEmpty()) {
            throw new IllegalArgumentException("roots: none (expected: at least one root URL)");
        }
        this.roots = List.copyOf(roots);
        this.patience = patience;
        this.threads = threads;
    }

    /**
     * Waits up to {@code patience} for {@code GET /ready} of every root to answer 200.
     *
     * @return whether they all did
     */
    public boolean awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        for (URI root : roots) {
            if (!awaitReady(root, deadline)) {
                return false;
            }
        }
        return true;
    }

    /** Waits until {@code deadlineNanos} for one root's {@code GET /ready} to answer 200. */
    private static boolean awaitReady(URI root, long deadlineNanos) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        while (System.nanoTime() < deadlineNanos) {
            try {
                HttpResponse<Void> response = http.send(HttpRequest.newBuilder(root.resolve("/ready"))
                        .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200) {
                    return true;
                }
            } catch (IOException e) {
                // not up yet
            }
            Thread.sleep(RETRY_PAUSE.toMillis());
        }
        return false;
    }

    /** Reads every id: present, absent, or unreadable after {@code patience}. */
    public Map<String, Presence> readAll(List<String> ids) throws InterruptedException {
        Map<String, Presence> found = new ConcurrentHashMap<>();
        long deadline = System.nanoTime() + patience.toNanos();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads, Thread.ofPlatform().name("final-read-", 0).factory())) {
            List<Future<?>> reads = ids.stream().<Future<?>>map(id -> pool.submit(() -> {
                found.put(id, readOne(id, deadline));
                return null;
            })).toList();
            for (Future<?> read : reads) {
                try {
                    read.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("a final read failed: " + e.getCause(), e.getCause());
                }
            }
        }
        return found;
    }

    private Presence readOne(String id, long deadlineNanos) throws InterruptedException {
        while (true) {
            Presence presence = client.read(Math.floorMod(id.hashCode(), client.roots()), id);
            if (presence != Presence.UNREADABLE || System.nanoTime() >= deadlineNanos) {
                return presence;
            }
            Thread.sleep(RETRY_PAUSE.toMillis());
        }
    }
}
