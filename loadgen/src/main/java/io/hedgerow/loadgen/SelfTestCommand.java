package io.hedgerow.loadgen;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Durations;
import io.hedgerow.loadgen.http.LoadRequest;
import io.hedgerow.loadgen.http.SelfTestResponder;
import io.hedgerow.loadgen.report.PhaseResult;
import io.hedgerow.loadgen.report.ReportWriter;
import io.hedgerow.loadgen.report.ResultTable;
import io.hedgerow.loadgen.report.RunResult;
import io.hedgerow.loadgen.run.LoadRun;
import io.hedgerow.loadgen.run.PhaseSpec;
import io.hedgerow.loadgen.run.RequestSource;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code loadgen selftest}: loads a trivial in-process responder, so the latency measured is the
 * generator's own (plus loopback), and says whether it stays out of the way.
 */
@Command(name = "selftest", mixinStandardHelpOptions = true,
        description = {"Measure the load generator's own overhead against a trivial in-process HTTP responder.",
                "Passes when the generator's p99.9 stays under --max-p999-ms (1 ms) at the given rate."})
final class SelfTestCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--rate", defaultValue = "5000", description = "Requests per second (default: ${DEFAULT-VALUE}).")
    private double rate;

    @Option(names = "--duration", defaultValue = "20s", description = "Measured time (default: ${DEFAULT-VALUE}).")
    private String duration;

    /** Long enough for the JIT to settle and for the collector's first cycles, which come in the first seconds. */
    @Option(names = "--warmup", defaultValue = "10s",
            description = "Unmeasured warm-up before it, 0s for none (default: ${DEFAULT-VALUE}).")
    private String warmup;

    @Option(names = "--max-p999-ms", defaultValue = "1", paramLabel = "MS",
            description = "Pass when the p99.9 is under this (default: ${DEFAULT-VALUE}).")
    private double maxP999Millis;

    @Option(names = "--results", defaultValue = "results", paramLabel = "DIR",
            description = "Where the results folder goes (default: ${DEFAULT-VALUE}).")
    private Path results;

    @Override
    public Integer call() throws Exception {
        PrintStream out = new PrintStream(System.out, true);
        try {
            return selfTest(out);
        } catch (IOException | IllegalArgumentException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
            return 1;
        }
    }

    private int selfTest(PrintStream out) throws IOException, InterruptedException {
        if (!(maxP999Millis > 0)) {
            throw new IllegalArgumentException("--max-p999-ms: " + maxP999Millis + " (expected: > 0)");
        }
        Duration warmupDuration = Durations.parse(warmup);
        PhaseSpec measured = new PhaseSpec("selftest", Durations.parse(duration), rate, "poisson", 0, true);
        try (SelfTestResponder responder = new SelfTestResponder(Transport.best())) {
            URI target = URI.create("http://127.0.0.1:" + responder.port());
            out.printf(Locale.ROOT, "Self-test: open loop (poisson) at %.0f req/s against a trivial responder on %s%n", rate, target);
            Instant startedAt = Instant.now();
            PhaseResult result;
            // No metrics to read from the responder, and a request of another shape would make the JIT
            // drop the responder's compiled decoder just as the measured phase starts.
            String loop;
            try (LoadRun run = new LoadRun(target, 1000, out, false)) {
                loop = run.loopPriority();
                // One request source for both phases: a second one, of another class, would make the JIT
                // drop code compiled during the warm-up just as the measured phase starts.
                LoadRequest slash = LoadRequest.get("/");
                RequestSource root = () -> slash;
                if (!warmupDuration.isZero()) {
                    run.warmUp(new PhaseSpec("warmup", warmupDuration, rate, "poisson", 0, false), root, 1);
                }
                result = run.run(measured, root, 2);
            }
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("load", String.format(Locale.ROOT, "open loop (poisson) at %.0f req/s", rate));
            settings.put("duration", duration);
            settings.put("warmup", warmup);
            settings.put("connections", "1000");
            settings.put("generator loop", loop);
            settings.put("machine", Runtime.getRuntime().availableProcessors() + " cores, Java " + Runtime.version()
                    + ", " + LoadgenCli.collectors());
            RunResult runResult = new RunResult("selftest", startedAt, target.toString(), settings, List.of(result));
            out.println();
            out.print(ResultTable.render(List.of(result)));
            double p999 = result.percentileMillis(99.9);
            boolean pass = p999 < maxP999Millis && result.errors() == 0 && result.dropped() == 0;
            out.printf(Locale.ROOT, "%nGenerator overhead at %.0f req/s: p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms: %s (target: p99.9 < %s ms)%n",
                    rate, result.percentileMillis(50), result.percentileMillis(99), p999, result.maxMillis(),
                    pass ? "PASS" : "FAIL", new BigDecimal(Double.toString(maxP999Millis)).stripTrailingZeros().toPlainString());
            out.println("Results: " + ReportWriter.write(runResult, results));
            return pass ? 0 : 1;
        }
    }
}
