package io.hedgerow.loadgen;

import io.hedgerow.loadgen.run.PhaseSpec;
import io.hedgerow.loadgen.run.ReadyWait;
import io.hedgerow.loadgen.run.RequestSource;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import picocli.CommandLine.Option;

/** {@code --await-ready}: load a cluster that is still starting from the moment it is ready (see {@link ReadyWait}). */
final class ReadyFlags {
    private static final Duration GENERATOR_WARMUP = Duration.ofSeconds(10);
    private static final Duration PATIENCE = Duration.ofMinutes(10);

    @Option(names = "--await-ready", description = "For a cluster still starting: warm the generator's own JVM for 10 s"
            + " against an in-process responder, then wait until the target's /ready answers 200 (at most 10 minutes)"
            + " and start the load at once.")
    boolean enabled;

    /** Refuses it where it has no meaning: a scenario or a capacity search. */
    void check(boolean scenario, boolean findCapacity) {
        if (enabled && (scenario || findCapacity)) {
            throw new IllegalArgumentException("--await-ready goes with a steady run (--rate or --closed-loop), not with"
                    + (scenario ? " --scenario" : " --find-capacity"));
        }
    }

    /** When asked: warms the generator with the run's own requests as {@code main} sends them, then waits for {@code target}. */
    void awaitIfAsked(PrintStream out, PhaseSpec main, RequestSource requests, long seed, URI target)
            throws IOException, InterruptedException {
        if (enabled) {
            ReadyWait wait = new ReadyWait(out);
            wait.warmGenerator(main, requests, GENERATOR_WARMUP, seed);
            wait.awaitReady(target, PATIENCE);
        }
    }
}
