package io.hedgerow.benchmarks;

import io.hedgerow.common.time.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * The options of {@link ServingCeiling}, parsed from its command line. Immutable.
 *
 * @param data     the data folder holding {@code europarl/} and {@code queries/}
 * @param queries  the query set file (category TAB query), or null for the load generator's default,
 *                 {@code <data>/queries/europarl-<seed>.tsv}
 * @param mode     what one query does ({@link Mode})
 * @param threads  closed-loop threads, each running one query after another
 * @param warmup   unmeasured time before the measurement
 * @param duration measured time
 * @param seed     seeds each thread's query picks (thread i uses {@code seed + i})
 */
public record CeilingOptions(Path data, Path queries, Mode mode, int threads, Duration warmup, Duration duration,
        long seed) {

    /** What one query of the ceiling does. */
    public enum Mode {
        /**
         * The cluster's default request in one process: the query parsed as the leaf parses it (title and
         * body), each of the 16 partitions searched for its top 10 (cost estimate included, as the leaf
         * does), the top 10 merged, then stored fields and a snippet fetched for the 10 winners, found by
         * their id as the leaf's fetch finds them.
         */
        FULL,
        /** Raw Lucene: body only, queries parsed before the measurement, top 10 per partition, no merge, no fetch. */
        RAW;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public CeilingOptions {
        if (data == null) {
            throw new IllegalArgumentException("--data: missing (expected: the data folder holding europarl/)");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("--threads: " + threads + " (expected: >= 1)");
        }
        if (warmup.isNegative()) {
            throw new IllegalArgumentException("--warmup: " + warmup + " (expected: >= 0)");
        }
        if (duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException("--duration: " + duration + " (expected: > 0)");
        }
    }

    public static final String USAGE = """
            Usage: java -cp benchmarks/target/hedgerow-benchmarks.jar io.hedgerow.benchmarks.ServingCeiling [options]

            The in-process ceiling: Hedgerow's own PartitionSearcher over the 16 Europarl partitions, the load
            generator's queries in its default mix, N threads in a closed loop; prints queries/s.

              --data DIR        data folder with europarl/ (default: $HEDGEROW_DATA, else ./data)
              --queries FILE    query set (default: <data>/queries/europarl-<seed>.tsv, which the load
                                generator writes on its first run)
              --mode MODE       full: the default request (title and body, top 10 of each partition merged,
                                stored fields and snippets of the 10 winners); raw: body only, pre-parsed,
                                no fetch (default: full)
              --threads N       closed-loop threads (default: available processors)
              --warmup D        unmeasured time first (default: 10s)
              --duration D      measured time (default: 30s)
              --seed N          query picks (default: 42, the load generator's)
              -h, --help        this help
            """;

    /**
     * Parses {@code args}; {@code defaultData} and {@code processors} are the defaults of --data and
     * --threads (main passes the environment's).
     *
     * @throws IllegalArgumentException naming the option, its value and what was expected
     */
    public static CeilingOptions parse(String[] args, Path defaultData, int processors) {
        Path data = defaultData;
        Path queries = null;
        Mode mode = Mode.FULL;
        int threads = processors;
        Duration warmup = Duration.ofSeconds(10);
        Duration duration = Duration.ofSeconds(30);
        long seed = 42;
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            String value = null;
            int equals = option.indexOf('=');
            if (option.startsWith("--") && equals > 0) {
                value = option.substring(equals + 1);
                option = option.substring(0, equals);
            } else if (i + 1 < args.length) {
                value = args[i + 1];
            }
            boolean inline = args[i].indexOf('=') > 0;
            switch (option) {
                case "--data" -> data = Path.of(required(option, value));
                case "--queries" -> queries = Path.of(required(option, value));
                case "--mode" -> mode = mode(required(option, value));
                case "--threads" -> threads = integer(option, required(option, value));
                case "--warmup" -> warmup = duration(option, required(option, value));
                case "--duration" -> duration = duration(option, required(option, value));
                case "--seed" -> seed = whole(option, required(option, value));
                default -> throw new IllegalArgumentException("unknown option '" + args[i] + "' (expected one of:"
                        + " --data, --queries, --mode, --threads, --warmup, --duration, --seed, --help)");
            }
            if (!inline) {
                i++;
            }
        }
        return new CeilingOptions(data, queries, mode, threads, warmup, duration, seed);
    }

    private static String required(String option, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(option + ": missing value");
        }
        return value;
    }

    private static Mode mode(String value) {
        return switch (value) {
            case "full" -> Mode.FULL;
            case "raw" -> Mode.RAW;
            default -> throw new IllegalArgumentException("--mode: '" + value + "' (expected: full or raw)");
        };
    }

    private static int integer(String option, String value) {
        long whole = whole(option, value);
        if (whole != (int) whole) {
            throw new IllegalArgumentException(option + ": '" + value + "' (expected: a whole number below 2^31)");
        }
        return (int) whole;
    }

    private static long whole(String option, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": '" + value + "' (expected: a whole number)", e);
        }
    }

    private static Duration duration(String option, String value) {
        try {
            return Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }
}
