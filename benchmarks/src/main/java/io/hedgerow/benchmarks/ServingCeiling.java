package io.hedgerow.benchmarks;

import io.hedgerow.common.time.Durations;
import io.hedgerow.leaf.index.EuroparlSource;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.BadQueryException;
import io.hedgerow.loadgen.Workload;
import io.hedgerow.loadgen.queries.QueryMix;
import io.hedgerow.loadgen.queries.QuerySampler;
import io.hedgerow.loadgen.queries.QuerySet;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The in-process ceiling of serving: Hedgerow's own {@code PartitionSearcher} over the 16 Europarl
 * partitions, with no network, no root and no leaf server, loaded by N threads in a closed loop with
 * the load generator's queries in its default mix. What a cluster on the same machine could serve if
 * everything between the HTTP request and Lucene cost nothing; {@code --mode raw} is bare Lucene
 * (body only, parsed before the run, no fetch). benchmarks/serving-cost.sh runs both in every round.
 *
 * <p>Prints a description, then one line {@code queries_per_s=R queries=N bad=B mode=M threads=T
 * seconds=S} for scripts. A bad query (one the leaf would refuse) counts in neither queries nor the
 * rate, as a refused search is not a complete answer at the load generator either.
 */
public final class ServingCeiling {
    private ServingCeiling() {
    }

    public static void main(String[] args) throws Exception {
        for (String arg : args) {
            if (arg.equals("-h") || arg.equals("--help")) {
                System.out.print(CeilingOptions.USAGE);
                return;
            }
        }
        CeilingOptions options;
        try {
            String data = System.getenv("HEDGEROW_DATA");
            options = CeilingOptions.parse(args, Path.of(data == null || data.isBlank() ? "data" : data),
                    Runtime.getRuntime().availableProcessors());
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage() + " (see --help)");
            System.exit(2);
            return;
        }
        System.exit(run(options, System.out) ? 0 : 1);
    }

    /** Runs the ceiling as {@code options} say, describing it on {@code out}; false when it could not run. */
    static boolean run(CeilingOptions options, PrintStream out) throws IOException, InterruptedException {
        PartitionStore store = new PartitionStore(options.data().resolve(EuroparlSource.NAME));
        if (!store.isComplete()) {
            System.err.println("error: no complete Europarl index in " + store.dir() + " (run ./hedgerow index first,"
                    + " or point --data or HEDGEROW_DATA at the folder holding europarl/)");
            return false;
        }
        // The load generator's own loading: the same file, generated the same way when missing.
        Workload workload = Workload.load(options.queries(), options.data(), options.seed(), System.err);
        QuerySet set = workload.querySet();
        QueryMix mix = QueryMix.defaultFor(set);
        List<String> queries = QuerySampler.of(set, mix, options.seed()).queries();
        out.printf(Locale.ROOT, "Serving ceiling, mode %s: %d threads, %s warm-up, %s measured; %d queries from %s"
                        + " (mix %s)%n", options.mode().label(), options.threads(), Durations.format(options.warmup()), Durations.format(options.duration()),
                queries.size(), workload.file(), mix);
        try (CeilingSearch search = options.mode() == CeilingOptions.Mode.FULL
                ? CeilingSearch.full(store, queries) : CeilingSearch.raw(store, queries)) {
            ClosedLoop.Result result = ClosedLoop.run(search, set, mix, options);
            double seconds = options.duration().toNanos() / 1e9;
            out.printf(Locale.ROOT, "queries_per_s=%.1f queries=%d bad=%d mode=%s threads=%d seconds=%.1f%n",
                    result.completed() / seconds, result.completed(), result.bad(), options.mode().label(),
                    options.threads(), seconds);
            return true;
        }
    }

    /** N threads, each running query after query until the end; counts those that end inside the measured window. */
    static final class ClosedLoop {
        record Result(long completed, long bad) {
        }

        private ClosedLoop() {
        }

        static Result run(CeilingSearch search, QuerySet set, QueryMix mix, CeilingOptions options)
                throws InterruptedException, IOException {
            long startNanos = System.nanoTime() + options.warmup().toNanos();
            long endNanos = startNanos + options.duration().toNanos();
            long[] completed = new long[options.threads()];
            long[] bad = new long[options.threads()];
            long[] checksum = new long[options.threads()];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < options.threads(); t++) {
                int slot = t;
                // One sampler per thread (not thread-safe), seeded apart so threads do not run in step.
                QuerySampler sampler = QuerySampler.of(set, mix, options.seed() + slot);
                Thread thread = new Thread(() -> {
                    try {
                        long now;
                        while ((now = System.nanoTime()) < endNanos && failure.get() == null) {
                            boolean ok = true;
                            try {
                                checksum[slot] += search.run(sampler.next());
                            } catch (BadQueryException e) {
                                ok = false;
                            }
                            now = System.nanoTime();
                            if (now >= startNanos && now < endNanos) {
                                if (ok) {
                                    completed[slot]++;
                                } else {
                                    bad[slot]++;
                                }
                            }
                        }
                    } catch (IOException | RuntimeException e) {
                        failure.compareAndSet(null, e);
                    }
                }, "ceiling-" + slot);
                threads.add(thread);
                thread.start();
            }
            for (Thread thread : threads) {
                thread.join(); // the thread's writes to its slots happen-before this returns
            }
            if (failure.get() != null) {
                throw new IOException("a ceiling thread failed: " + failure.get(), failure.get());
            }
            long total = 0;
            long refused = 0;
            long sum = 0;
            for (int t = 0; t < completed.length; t++) {
                total += completed[t];
                refused += bad[t];
                sum += checksum[t];
            }
            if (sum == Long.MIN_VALUE) {
                System.err.println("(checksum " + sum + ")"); // keeps the answers alive; never true in practice
            }
            return new Result(total, refused);
        }
    }
}
