package io.hedgerow.loadgen.run;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.loadgen.http.HttpLoadClient;
import io.hedgerow.loadgen.http.ResponseListener;
import io.hedgerow.loadgen.report.Latencies;
import io.hedgerow.loadgen.report.PhaseResult;
import io.hedgerow.loadgen.report.RootView;
import io.hedgerow.loadgen.schedule.ArrivalSchedule;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;

/**
 * Runs phases of load through one {@link HttpLoadClient}: open loop on a schedule (latency from
 * each request's intended start), or closed loop with a fixed number of requests in flight
 * (latency from the actual send, labelled as such), with a progress line every second: elapsed
 * time, then the rate, p50 and p99 of the last second, then requests in flight, errors (refusals
 * among them) and drops.
 */
public final class PhaseRunner {
    private final HttpLoadClient client;
    private final Ticker ticker;
    private final PrintStream progress;
    private final Duration drainTimeout;

    /**
     * @param drainTimeout how long to wait for answers after the last request of a phase started;
     *                     requests still out then fail, with the latency they had reached
     */
    public PhaseRunner(HttpLoadClient client, Ticker ticker, PrintStream progress, Duration drainTimeout) {
        this.client = client;
        this.ticker = ticker;
        this.progress = progress;
        this.drainTimeout = drainTimeout;
    }

    /** Runs one phase and returns what it measured. */
    public PhaseResult run(PhaseSpec spec, RequestSource requests, long seed) throws InterruptedException {
        PhaseRecorder recorder = new PhaseRecorder(ticker);
        CompletableFuture<Void> started = new CompletableFuture<>();
        long durationNanos = spec.duration().toNanos();
        long startNanos = ticker.nanoTime();
        if (spec.closedLoop()) {
            client.loop().execute(() -> new ClosedLoop(recorder, requests, startNanos + durationNanos, spec.concurrency(),
                    started).start());
        } else {
            ArrivalSchedule schedule = spec.arrival().equals("poisson")
                    ? ArrivalSchedule.poisson(spec.rate(), seed) : ArrivalSchedule.constant(spec.rate());
            client.loop().execute(() -> new OpenLoop(recorder, requests, schedule, startNanos,
                    startNanos + durationNanos, started).tick());
        }
        awaitWithProgress(spec, recorder, started, startNanos);
        drain(recorder);
        long elapsed = ticker.nanoTime() - startNanos;
        Latencies latencies = recorder.finish();
        if (!recorder.errorReasons().isEmpty()) {
            progress.println("  " + spec.name() + ": errors by reason: " + recorder.errorReasons());
        }
        return new PhaseResult(spec.name(), spec.mode(), spec.closedLoop() ? 0 : spec.rate(), Math.min(elapsed, durationNanos),
                recorder.sentCount(), recorder.droppedCount(), latencies, recorder.taintedCoverage(),
                recorder.errorReasons(), RootView.UNKNOWN, List.of());
    }

    private void awaitWithProgress(PhaseSpec spec, PhaseRecorder recorder, CompletableFuture<Void> done, long startNanos)
            throws InterruptedException {
        long lastCompleted = 0;
        long lastNanos = startNanos;
        while (true) {
            try {
                done.get(1, TimeUnit.SECONDS);
                return;
            } catch (TimeoutException e) {
                long now = ticker.nanoTime();
                Histogram interval = recorder.interval();
                long completed = recorder.completed();
                double rate = (completed - lastCompleted) * 1e9 / (now - lastNanos);
                lastCompleted = completed;
                lastNanos = now;
                // A second in which nothing completed is a stall: say so rather than print a latency of 0.
                String latency = interval.getTotalCount() == 0 ? String.format(Locale.ROOT, "%-30s", "nothing answered")
                        : String.format(Locale.ROOT, "p50 %8.2f ms  p99 %8.2f ms", interval.getValueAtPercentile(50) / 1000.0,
                                interval.getValueAtPercentile(99) / 1000.0);
                progress.printf(Locale.ROOT, "  [%s %4ds] %7.0f req/s  %s  in flight %d  errors %d (refused %d)"
                        + "  dropped %d%n", spec.name(), Math.round((now - startNanos) / 1e9), rate, latency, inFlight(),
                        recorder.errors(), recorder.refused(), recorder.droppedCount());
            } catch (ExecutionException e) {
                throw new IllegalStateException("load loop failed", e.getCause());
            }
        }
    }

    /** Waits for answers still out; fails whatever has not come within the drain timeout. */
    private void drain(PhaseRecorder recorder) throws InterruptedException {
        long deadline = ticker.nanoTime() + drainTimeout.toNanos();
        while (inFlight() > 0 && ticker.nanoTime() - deadline < 0) {
            Thread.sleep(5);
        }
        if (inFlight() > 0) {
            client.loop().submit(() -> client.closeAll("no answer within the drain timeout of "
                    + drainTimeout.toMillis() + " ms")).syncUninterruptibly();
        }
    }

    private int inFlight() {
        return client.loop().submit(client::inFlight).syncUninterruptibly().getNow();
    }

    /** Starts requests on the schedule, on the client's loop, until the end time. */
    private final class OpenLoop {
        private final PhaseRecorder recorder;
        private final RequestSource requests;
        private final ArrivalSchedule schedule;
        private final long endNanos;
        private final CompletableFuture<Void> done;
        private long nextIntendedNanos;

        OpenLoop(PhaseRecorder recorder, RequestSource requests, ArrivalSchedule schedule, long startNanos,
                long endNanos, CompletableFuture<Void> done) {
            this.recorder = recorder;
            this.requests = requests;
            this.schedule = schedule;
            this.endNanos = endNanos;
            this.done = done;
            this.nextIntendedNanos = startNanos;
        }

        void tick() {
            try {
                long now = ticker.nanoTime();
                // Late ticks send every request that is due: their latency counts from when they
                // should have started, so the generator's own hiccups are not hidden either.
                while (nextIntendedNanos - now <= 0 && nextIntendedNanos - endNanos < 0) {
                    if (!client.send(requests.next(), nextIntendedNanos, recorder)) {
                        recorder.dropped();
                    }
                    nextIntendedNanos += schedule.nextGapNanos();
                }
                if (nextIntendedNanos - endNanos < 0) {
                    client.loop().schedule(this::tick, nextIntendedNanos - now, TimeUnit.NANOSECONDS);
                } else {
                    done.complete(null);
                }
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        }
    }

    /**
     * Keeps {@code concurrency} requests in flight until the end time. A client refused with a
     * {@code Retry-After} waits that long before its next request, as a well-behaved client does:
     * otherwise a refusal, answered in microseconds, turns its slot into a loop of refusals that
     * takes the CPU from the work being measured.
     */
    private final class ClosedLoop implements ResponseListener {
        private final PhaseRecorder recorder;
        private final RequestSource requests;
        private final long endNanos;
        private final int concurrency;
        private final CompletableFuture<Void> done;
        private int active;
        private int backingOff;
        /** The wait the response being completed asked for; 0 for none. */
        private long retryAfterNanos;

        ClosedLoop(PhaseRecorder recorder, RequestSource requests, long endNanos, int concurrency,
                CompletableFuture<Void> done) {
            this.recorder = recorder;
            this.requests = requests;
            this.endNanos = endNanos;
            this.concurrency = concurrency;
            this.done = done;
        }

        void start() {
            for (int i = 0; i < concurrency; i++) {
                sendNext();
            }
        }

        private void sendNext() {
            long now = ticker.nanoTime();
            if (now - endNanos >= 0) {
                if (active == 0 && backingOff == 0) {
                    done.complete(null);
                }
                return;
            }
            if (client.send(requests.next(), now, this)) {
                active++;
            } else {
                recorder.dropped();
                done.completeExceptionally(new IllegalStateException(
                        "closed loop needs " + concurrency + " connections; raise --connections"));
            }
        }

        @Override
        public void sent(long intendedNanos, long sentNanos) {
            recorder.sent(intendedNanos, sentNanos);
        }

        @Override
        public void retryAfter(long nanos) {
            retryAfterNanos = nanos;
            recorder.retryAfter(nanos); // a code-less 503 with Retry-After is a refusal
        }

        @Override
        public void completed(long sentNanos, int status, boolean tainted, double docsFraction, String errorCode) {
            active--;
            recorder.completed(sentNanos, status, tainted, docsFraction, errorCode);
            long wait = Math.min(retryAfterNanos, endNanos - ticker.nanoTime());
            retryAfterNanos = 0;
            if (wait > 0) {
                backingOff++;
                client.loop().schedule(() -> {
                    backingOff--;
                    sendNext();
                }, wait, TimeUnit.NANOSECONDS);
            } else {
                sendNext();
            }
        }

        @Override
        public void failed(long sentNanos, String reason) {
            active--;
            recorder.failed(sentNanos, reason);
            sendNext();
        }
    }

}
