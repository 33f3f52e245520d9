package io.hedgerow.loadgen.run;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.loadgen.http.HttpLoadClient;
import io.hedgerow.loadgen.report.PhaseResult;
import io.netty.channel.EventLoopGroup;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The load generator's machinery for one target: one event loop, one keep-alive client, a phase
 * runner, and a reader of the root's metrics so each phase reports its extra leaf requests.
 */
public final class LoadRun implements AutoCloseable {
    private final EventLoopGroup group;
    private final PhaseRunner runner;
    private final RootMetricsScraper scraper;

    /**
     * @param connections the in-flight cap: requests beyond it are dropped and counted
     */
    public LoadRun(URI target, int connections, PrintStream progress) {
        Transport transport = Transport.best();
        this.group = transport.newGroup(1, "loadgen");
        HttpLoadClient client = new HttpLoadClient(target, group.next(), transport, connections);
        this.runner = new PhaseRunner(client, Ticker.system(), progress, Duration.ofSeconds(10));
        this.scraper = new RootMetricsScraper(target);
    }

    /** Runs a phase; its extra leaf requests come from the root's counters before and after. */
    public PhaseResult run(PhaseSpec spec, RequestSource requests, long seed) throws InterruptedException {
        Map<String, Double> before = scraper.subRequestsSent();
        PhaseResult result = runner.run(spec, requests, seed);
        Double extra = RootMetricsScraper.extraPercent(before, scraper.subRequestsSent());
        return result.withExtraLeafRequestsPct(extra);
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
