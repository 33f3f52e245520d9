package io.hedgerow.loadgen.run;

import io.hedgerow.common.net.Transport;
import io.hedgerow.loadgen.http.SelfTestResponder;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;

/**
 * Gets the generator ready for a cluster that is still starting ({@code --await-ready}): it first
 * warms its own JVM by sending the run's own requests to an in-process responder (so its sending,
 * receiving and recording code is compiled before the first measured request, and a cold start
 * measures the cluster, not the generator), then polls the target's {@code /ready} until it answers
 * 200, so the load starts the moment the cluster says it is ready.
 */
public final class ReadyWait {
    private static final Duration POLL_EVERY = Duration.ofMillis(100);

    private final PrintStream out;

    public ReadyWait(PrintStream out) {
        this.out = out;
    }

    /**
     * Sends {@code requests} as {@code spec} does (its rate, or its closed loop) to an in-process
     * responder for {@code duration}; nothing is recorded.
     */
    public void warmGenerator(PhaseSpec spec, RequestSource requests, Duration duration, long seed)
            throws InterruptedException {
        try (SelfTestResponder responder = new SelfTestResponder(Transport.best());
                LoadRun run = new LoadRun(URI.create("http://127.0.0.1:" + responder.port()), 1000, out, false)) {
            out.printf(Locale.ROOT, "Warming the generator itself for %d s against an in-process responder...%n",
                    duration.toSeconds());
            run.warmUp(new PhaseSpec("generator-warmup", duration, spec.rate(), spec.arrival(), spec.concurrency(), false),
                    requests, seed);
        }
    }

    /**
     * Polls {@code target}'s {@code /ready} until it answers 200, saying so every 30 s.
     *
     * @throws IOException when it has not within {@code patience}
     */
    public void awaitReady(URI target, Duration patience) throws IOException, InterruptedException {
        URI ready = target.resolve("/ready");
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest request = HttpRequest.newBuilder(ready).timeout(Duration.ofSeconds(2)).GET().build();
        long start = System.nanoTime();
        long nextNote = start + Duration.ofSeconds(30).toNanos();
        String last = "no answer yet";
        out.printf(Locale.ROOT, "Waiting for %s to answer 200...%n", ready);
        while (true) {
            try {
                int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                if (status == 200) {
                    out.printf(Locale.ROOT, "%s answered 200 after %.1f s%n", ready, (System.nanoTime() - start) / 1e9);
                    return;
                }
                last = "HTTP " + status;
            } catch (IOException e) {
                last = e.getClass().getSimpleName();
            }
            long now = System.nanoTime();
            if (now - start > patience.toNanos()) {
                throw new IOException(String.format(Locale.ROOT, "%s did not answer 200 within %.1f s (last: %s)", ready,
                        patience.toMillis() / 1000.0, last));
            }
            if (now > nextNote) {
                out.printf(Locale.ROOT, "  still waiting for %s (%s)%n", ready, last);
                nextNote = now + Duration.ofSeconds(30).toNanos();
            }
            Thread.sleep(POLL_EVERY);
        }
    }
}
