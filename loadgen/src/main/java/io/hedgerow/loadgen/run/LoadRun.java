package io.hedgerow.loadgen.run;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.loadgen.http.HttpLoadClient;
import io.hedgerow.loadgen.report.PhaseResult;
import io.hedgerow.loadgen.report.RootView;
import io.netty.channel.EventLoopGroup;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The load generator's machinery for one target: one event loop, one keep-alive client, a phase
 * runner, and a reader of the root's metrics so each phase reports what the root says of it: extra
 * leaf requests, tied pairs where both copies ran, its own latency and its search count.
 */
public final class LoadRun implements AutoCloseable {
    /** The last part of a warm-up, run as a phase of its own (see {@link #warmUp}). */
    static final Duration SETTLE = Duration.ofSeconds(2);

    private final EventLoopGroup group;
    private final PhaseRunner runner;
    /** What the event loop runs at: real-time when it could be raised ({@link LoopPriority}). */
    private final String loopPriority;
    /** Null for a target that is not a Hedgerow root. */
    private final RootMetricsScraper scraper;

    /**
     * @param connections the in-flight cap: requests beyond it are dropped and counted
     */
    public LoadRun(URI target, int connections, PrintStream progress) {
        this(target, connections, progress, true);
    }

    /**
     * @param connections     the in-flight cap: requests beyond it are dropped and counted
     * @param readRootMetrics false for a target that is not a Hedgerow root (the self-test's
     *                        responder): its extra leaf requests are then unknown
     */
    public LoadRun(URI target, int connections, PrintStream progress, boolean readRootMetrics) {
        Transport transport = Transport.best();
        this.group = transport.newGroup(1, "loadgen");
        HttpLoadClient client = new HttpLoadClient(target, group.next(), transport, connections, Ticker.system());
        this.loopPriority = client.loop().submit(LoopPriority::raise).syncUninterruptibly().getNow();
        this.runner = new PhaseRunner(client, Ticker.system(), progress, Duration.ofSeconds(10));
        this.scraper = readRootMetrics ? new RootMetricsScraper(target) : null;
    }

    /** What the generator's event loop runs at, for the run's settings. */
    public String loopPriority() {
        return loopPriority;
    }

    /**
     * Runs an unmeasured warm-up phase in two parts, the last {@link #SETTLE} of it a phase of its
     * own. The end of the first phase the generator ever runs takes branches its compiled code has
     * never taken, so the JIT drops that code and compiles it again; on two cores the compiler
     * then takes the CPU from the event loops for milliseconds. The second part takes that hit, so
     * the measured phase after it does not.
     */
    public void warmUp(PhaseSpec warmup, RequestSource requests, long seed) throws InterruptedException {
        Duration first = warmup.duration().minus(SETTLE);
        if (first.compareTo(SETTLE) >= 0) {
            runner.run(part(warmup, warmup.name(), first), requests, seed);
            runner.run(part(warmup, warmup.name() + "-end", SETTLE), requests, seed + 1);
        } else {
            runner.run(warmup, requests, seed);
        }
    }

    private static PhaseSpec part(PhaseSpec spec, String name, Duration duration) {
        return new PhaseSpec(name, duration, spec.rate(), spec.arrival(), spec.concurrency(), false);
    }

    /**
     * Runs a phase; what the root says about it (extra leaf requests, tied pairs where both ran,
     * its own latency, its search count) comes from readings of the root before and after.
     */
    public PhaseResult run(PhaseSpec spec, RequestSource requests, long seed) throws InterruptedException {
        if (scraper == null) {
            return runner.run(spec, requests, seed);
        }
        RootReadings readings = new RootReadings(scraper);
        readings.before();
        PhaseResult result = runner.run(spec, requests, seed);
        RootView view = readings.after(result.sent());
        return result.withRoot(view, readings.notes());
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
