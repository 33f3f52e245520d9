package io.hedgerow.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.hedgerow.root.sim.SimCharts;
import io.hedgerow.root.sim.SimConfig;
import io.hedgerow.root.sim.SimSummary;
import io.hedgerow.root.sim.SimTable;
import io.hedgerow.root.sim.Simulation;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code hedgerow simulate}: the request path at thousands of modelled leaves on a virtual clock
 * ({@link Simulation}). Each option is a {@link SimConfig} option of the same name; {@code --sweep}
 * varies any of them.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Simulate a root and 1 to 10,000 leaves on a virtual clock: the real request path (SearchRun,",
                "replica choice, hedge delay and budget, tied requests, canaries, good-enough cutoff) against",
                "modelled leaves (service time, workers and the leaf's class queues, contention, slow requests,",
                "pauses, degraded and crashed leaves, network delay). Seeded: the same options give the same numbers.",
                "Prints a table (one row per run; --json for a summary), and with --out writes each run's",
                "latency histogram (.hgrm), the summaries and PNG charts.",
                "",
                "Example: the paper's figure, 1 request in 100 slow by 1 s, at 1 to 2,000 leaves:",
                "  ./hedgerow simulate --service fixed:10ms --replicas 1 --slow-fraction 0.01 \\",
                "      --sweep leaves=1,10,100,1000,2000",
                ""})
final class SimulateCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--leaves", paramLabel = "N", description = "Leaves (default: 100).")
    private String leaves;
    @Option(names = "--partitions", paramLabel = "N", description = "Partitions: each search asks each once (default:"
            + " as many as leaves).")
    private String partitions;
    @Option(names = "--replicas", paramLabel = "N", description = "Copies of each partition, on distinct leaves"
            + " (default: 2, or 1 with one leaf).")
    private String replicas;
    @Option(names = "--rate", paramLabel = "PER_S", description = "Searches a second, Poisson arrivals (default: the"
            + " rate that makes --load).")
    private String rate;
    @Option(names = "--load", paramLabel = "U", description = "Without --rate: the share of the leaves' workers the"
            + " primaries keep busy (default: 0.3).")
    private String load;
    @Option(names = "--queries", paramLabel = "N", description = "Searches to run (default: 10000).")
    private String queries;
    @Option(names = "--warmup", paramLabel = "F", description = "Share of the searches, the first, not measured while"
            + " the hedge delay and windows learn (default: 0.05).")
    private String warmup;
    @Option(names = "--policy", paramLabel = "P", description = "none, or hedged, tied, good-enough and canary joined"
            + " by + (default: none).")
    private String policy;
    @Option(names = "--service", paramLabel = "DIST", description = "Service time: fixed:10ms, exp:2ms,"
            + " lognormal:MEDIAN,P99, empirical:FILE.hgrm, or each leaf its own: empirical:DIR (a load run's"
            + " <phase>-leaves/ folder, its leaf-N-search-service.hgrm files) or empirical:A.hgrm,B.hgrm"
            + " (default: lognormal:2ms,6ms).")
    private String service;
    @Option(names = "--workers", paramLabel = "N", description = "Workers per leaf (default: 4).")
    private String workers;
    @Option(names = "--contention", paramLabel = "C", description = "Work takes 1 + C x busy/workers times its drawn"
            + " time (default: auto, 0.2; 0 with --cores, whose sharing is the contention).")
    private String contention;
    @Option(names = "--network", paramLabel = "D", description = "One-way delay root to leaf (default: 50us).")
    private String network;
    @Option(names = "--peer", paramLabel = "D", description = "Delay of a twin's cancel, leaf to leaf (default: 50us).")
    private String peer;
    @Option(names = "--cores", paramLabel = "N", description = "Cores shared by every leaf's work, the root's and the"
            + " client's, as on one machine: service times are CPU, slower while the cores are busy (default: none,"
            + " each leaf's workers have their own).")
    private String cores;
    @Option(names = "--cpu-sched", paramLabel = "S", description = "With --cores: how they are shared: las (the work"
            + " that has had the least CPU first, as Linux favours a thread that wakes) or ps (an equal share for all"
            + " running work) (default: las).")
    private String cpuSched;
    @Option(names = "--root-cpu", paramLabel = "D", description = "With --cores: the root's CPU per message (the HTTP"
            + " request and answer, each sub-request, reply, fetch) (default: 0).")
    private String rootCpu;
    @Option(names = "--leaf-cpu", paramLabel = "D", description = "With --cores: a leaf's CPU per sub-request or fetch"
            + " outside its service time, reading and writing it (default: 0).")
    private String leafCpu;
    @Option(names = "--client-cpu", paramLabel = "D", description = "With --cores: the load generator's CPU per search,"
            + " beside its path (default: 0).")
    private String clientCpu;
    @Option(names = "--hits", paramLabel = "H", description = "A search's hits lie in H of its partitions on average,"
            + " and the root's fetch phase fetches their stored fields and snippets from the leaves that answered"
            + " them (default: 0, ids and scores only: no fetch phase).")
    private String hits;
    @Option(names = "--fetch-service", paramLabel = "DIST", description = "A fetch's service time at the leaf, as"
            + " --service (e.g. empirical:A.hgrm,B.hgrm from leaf-N-fetch-service.hgrm) (default: fixed:0).")
    private String fetchService;
    @Option(names = "--slow-fraction", paramLabel = "F", description = "Each sub-request is independently slow with"
            + " probability F (default: 0).")
    private String slowFraction;
    @Option(names = "--slow", paramLabel = "D", description = "How late a slow sub-request answers (default: 1s).")
    private String slow;
    @Option(names = "--query-cost", paramLabel = "P99", description = "Each search costs a multiple of the drawn"
            + " service time on every leaf, lognormal with median 1 and this p99 (default: 1, none).")
    private String queryCost;
    @Option(names = "--mix", paramLabel = "M", description = "The request mix: none (every search alike) or structured"
            + " (the load generator's --request-mix structured: plain 20%%, filtered 25%%, sorted 20%%, paged 15%%, faceted"
            + " 20%%, each shape costing its --mix-cost at the leaves; the table adds a row per shape) (default: none).")
    private String mix;
    @Option(names = "--mix-cost", paramLabel = "COSTS", description = "With --mix structured: each shape's multiple of"
            + " the drawn service time (default: " + "plain=1,filtered=2,sorted=2.5,paged=1.5,faceted=7.2"
            + ", a mean of 2.86, the CPU per answer of the measured structured mix over the plain one).")
    private String mixCost;
    @Option(names = "--mix-root-cost", paramLabel = "COSTS", description = "With --mix structured, --cores and --root-cpu:"
            + " each shape's multiple of the root's CPU per message (default: as --mix-cost's, the measured root CPU was"
            + " 2.88 times the plain one).")
    private String mixRootCost;
    @Option(names = "--mix-service", paramLabel = "SHAPE=DIST;...", description = "With --mix structured: shapes whose"
            + " service time is a distribution of their own instead of --service times their --mix-cost, as --service"
            + " writes one, joined by ';', e.g. 'faceted=empirical:faceted/all-search-service.hgrm;sorted=lognormal:5ms,15ms'"
            + " (a load run with that shape alone gives its table) (default: none, every shape scales --service).")
    private String mixService;
    @Option(names = "--pause-every", paramLabel = "D", description = "Each leaf pauses this often, at its own phase"
            + " (default: 0, never).")
    private String pauseEvery;
    @Option(names = "--pause", paramLabel = "D", description = "How long a pause stops a leaf (default: 0).")
    private String pause;
    @Option(names = "--pause-leaves", paramLabel = "N", description = "How many leaves pause, the first ones (default:"
            + " all).")
    private String pauseLeaves;
    @Option(names = "--pause-phase", paramLabel = "P", description = "random: each leaf pauses at a phase of its own;"
            + " aligned: every leaf at the same time, as background work in windows aligned on the clock"
            + " (default: random).")
    private String pausePhase;
    @Option(names = "--degraded-leaves", paramLabel = "N",
            description = "Leaves that run slower, all along or from --degraded-from until --degraded-until (default: 0).")
    private String degradedLeaves;
    @Option(names = "--degraded-factor", paramLabel = "X", description = "How many times slower (default: 10).")
    private String degradedFactor;
    @Option(names = "--degraded-from", paramLabel = "TIME", description = "When the degraded leaves turn slow (default: 0).")
    private String degradedFrom;
    @Option(names = "--degraded-until", paramLabel = "TIME",
            description = "When they are well again, or never (default: never).")
    private String degradedUntil;
    @Option(names = "--adapt", paramLabel = "PARTS",
            description = "The root's adaptation across requests: none, or choice (C3 replica ranking), stall (stall"
                    + " detection) and probation (with shadow requests) joined by + (default: choice+stall+probation).")
    private String adapt;
    @Option(names = "--crash-leaves", paramLabel = "N", description = "Leaves that crash (default: 0).")
    private String crashLeaves;
    @Option(names = "--crash-at", paramLabel = "T", description = "When they crash, simulated time (default: 1s).")
    private String crashAt;
    @Option(names = "--skew-partitions", paramLabel = "N", description = "The first N partitions are hot: their"
            + " searches cost --skew-factor times as much on every leaf (default: 0).")
    private String skewPartitions;
    @Option(names = "--skew-factor", paramLabel = "X", description = "How many times as much (default: 1).")
    private String skewFactor;
    @Option(names = "--selective-replication", paramLabel = "on|off", description = "The root's placement gives hot"
            + " partitions an extra copy, with its defaults (2x the median load over 30 s), as a root does with"
            + " --selective-replication (default: off, as the root).")
    private String selectiveReplication;
    @Option(names = "--rebalancing", paramLabel = "on|off", description = "The root's placement moves copies from hot"
            + " leaves to cool ones, with its defaults (1.5x the mean load, a move per 30 s) (default: off, as the root).")
    private String rebalancing;
    @Option(names = "--re-replicate-after", paramLabel = "D|off", description = "The root's placement re-replicates a"
            + " crashed leaf's partitions to the survivors after this grace, as a root does (default: 30s; off: never).")
    private String reReplicateAfter;
    @Option(names = "--open-time", paramLabel = "D", description = "How long a leaf takes to open and warm a partition"
            + " it is told to serve (default: 3s, about what the cluster's leaves take).")
    private String openTime;
    @Option(names = "--max-opening", paramLabel = "N", description = "Copies opening at once across the cluster, as"
            + " the root's --max-opening-copies (default: 2).")
    private String maxOpening;
    @Option(names = "--timeout", paramLabel = "D", description = "Each search's timeout (default: 10s).")
    private String timeout;
    @Option(names = "--hedge-after", paramLabel = "D", description = "A fixed hedge delay instead of the adaptive one"
            + " (default: adaptive).")
    private String hedgeAfter;
    @Option(names = "--hedge-percentile", paramLabel = "P", description = "The adaptive delay's percentile of recent"
            + " sub-request latency (default: 95).")
    private String hedgePercentile;
    @Option(names = "--budget", paramLabel = "R", description = "Extra sub-requests per primary the hedge budget"
            + " allows, or none (default: the root's, 0.1).")
    private String budget;
    @Option(names = "--min-coverage", paramLabel = "F", description = "With good-enough: the coverage a result at the"
            + " cutoff needs (default: 0.9).")
    private String minCoverage;
    @Option(names = "--slow-threshold", paramLabel = "D", description = "A search slower than this counts in"
            + " slow_fraction (default: 500ms).")
    private String slowThreshold;
    @Option(names = "--seed", paramLabel = "N", description = "Seed of every random draw (default: 1).")
    private String seed;

    // split: a configuration file's list of sweeps arrives as one text, a line each (ConfigFile).
    @Option(names = "--sweep", paramLabel = "OPTION=V1,V2", split = "\\n", hideParamSyntax = true,
            description = "Run a series: OPTION takes each value in"
            + " turn; several --sweep run every combination, e.g. --sweep policy=none,hedged --sweep leaves=10,100.")
    private List<String> sweeps = new ArrayList<>();
    @Option(names = "--json", description = "Print the summaries as JSON instead of the table.")
    private boolean json;
    @Option(names = "--quiet", description = "No progress lines on stderr.")
    private boolean quiet;
    @Option(names = "--out", paramLabel = "DIR", description = "Write summary.json, table.txt, each run's .hgrm, latency.png"
            + " (latency by percentile) and p999.png (p99.9 against the first swept option, when numeric) here.")
    private Path out;

    @Override
    public Integer call() throws IOException {
        // The simulated leaves go on and off probation thousands of times: those lines are the
        // production root's log, not the simulation's output.
        if (LoggerFactory.getLogger("io.hedgerow.root.adapt") instanceof ch.qos.logback.classic.Logger adaptation) {
            adaptation.setLevel(ch.qos.logback.classic.Level.OFF);
        }
        SimConfig base;
        Map<String, List<String>> series = new LinkedHashMap<>();
        try {
            base = baseConfig();
            for (String sweep : sweeps) {
                int equals = sweep.indexOf('=');
                if (equals <= 0) {
                    throw new IllegalArgumentException("sweep: '" + sweep + "' (expected: OPTION=V1,V2 such as"
                            + " leaves=1,10,100)");
                }
                String option = sweep.substring(0, equals).strip().replaceFirst("^--", "");
                List<String> values = List.of(sweep.substring(equals + 1).split(","));
                base.with(option, values.getFirst()); // checks the option's name and first value now
                series.put(option, values);
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        List<SimConfig> configs = combinations(base, new ArrayList<>(series.entrySet()), 0);
        PrintWriter err = spec.commandLine().getErr();
        List<SimSummary> runs = new ArrayList<>();
        for (SimConfig config : configs) {
            if (!quiet) {
                err.printf("simulating %s%n", describe(config, series.keySet()));
                err.flush();
            }
            SimSummary run;
            try {
                run = Simulation.run(config, quiet ? null : line -> {
                    err.println(line);
                    err.flush();
                });
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            runs.add(run);
            if (!quiet) {
                err.printf("  done: %,d searches in %.1f s, %,.0f events/s, %,.0f sub-requests/min%n", run.searches(),
                        run.wallNanos() / 1e9, run.eventsPerSecond(), run.subRequestsPerMinute());
            }
        }
        List<String> swept = new ArrayList<>(series.keySet());
        if (swept.isEmpty()) {
            swept.add("leaves");
            swept.add("policy");
        }
        String table = SimTable.of(swept, runs);
        String summary = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValueAsString(runs.stream().map(SimSummary::toJson).toList());
        spec.commandLine().getOut().print(json ? summary + "\n" : table);
        spec.commandLine().getOut().flush();
        if (out != null) {
            write(out, runs, table, summary, swept, err);
        }
        return 0;
    }

    private SimConfig baseConfig() {
        SimConfig config = SimConfig.defaults();
        Object[][] given = {{"leaves", leaves}, {"partitions", partitions}, {"replicas", replicas}, {"rate", rate},
                {"load", load}, {"queries", queries}, {"warmup", warmup}, {"policy", policy}, {"service", service},
                {"workers", workers}, {"contention", contention}, {"network", network}, {"peer", peer},
                {"cores", cores}, {"cpu-sched", cpuSched}, {"root-cpu", rootCpu}, {"leaf-cpu", leafCpu}, {"client-cpu", clientCpu},
                {"hits", hits}, {"fetch-service", fetchService},
                {"slow-fraction", slowFraction}, {"slow", slow}, {"query-cost", queryCost}, {"mix", mix}, {"mix-cost", mixCost}, {"mix-root-cost", mixRootCost}, {"mix-service", mixService}, {"pause-every", pauseEvery},
                {"pause", pause}, {"pause-leaves", pauseLeaves}, {"pause-phase", pausePhase},
                {"degraded-leaves", degradedLeaves}, {"degraded-factor", degradedFactor},
                {"degraded-from", degradedFrom}, {"degraded-until", degradedUntil}, {"adapt", adapt}, {"crash-leaves", crashLeaves},
                {"crash-at", crashAt}, {"skew-partitions", skewPartitions}, {"skew-factor", skewFactor},
                {"selective-replication", selectiveReplication}, {"rebalancing", rebalancing},
                {"re-replicate-after", reReplicateAfter}, {"open-time", openTime}, {"max-opening", maxOpening},
                {"timeout", timeout}, {"hedge-after", hedgeAfter},
                {"hedge-percentile", hedgePercentile}, {"budget", budget}, {"min-coverage", minCoverage},
                {"slow-threshold", slowThreshold}, {"seed", seed}};
        for (Object[] option : given) {
            if (option[1] != null) {
                config = config.with((String) option[0], (String) option[1]);
            }
        }
        return config;
    }

    private static List<SimConfig> combinations(SimConfig base, List<Map.Entry<String, List<String>>> series, int from) {
        if (from == series.size()) {
            return List.of(base);
        }
        List<SimConfig> configs = new ArrayList<>();
        for (String value : series.get(from).getValue()) {
            configs.addAll(combinations(base.with(series.get(from).getKey(), value), series, from + 1));
        }
        return configs;
    }

    private static String describe(SimConfig config, Iterable<String> swept) {
        StringBuilder text = new StringBuilder("leaves=" + config.get("leaves") + " policy=" + config.get("policy"));
        for (String option : swept) {
            if (!option.equals("leaves") && !option.equals("policy")) {
                text.append(' ').append(option).append('=').append(config.get(option));
            }
        }
        return text.toString();
    }

    private static void write(Path dir, List<SimSummary> runs, String table, String summary, List<String> swept,
            PrintWriter err) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("summary.json"), summary + "\n");
        Files.writeString(dir.resolve("table.txt"), table);
        try {
            SimCharts.write(dir, "simulate " + String.join(", ", swept), swept, runs);
        } catch (IOException e) {
            err.println("no charts: " + e.getMessage()); // the numbers are written all the same
            err.flush();
        }
        for (SimSummary run : runs) {
            StringBuilder name = new StringBuilder("run");
            for (String option : swept) {
                name.append('-').append(option).append('=').append(run.options().get(option).replaceAll("[^A-Za-z0-9.+_-]", "_"));
            }
            try (PrintStream hgrm = new PrintStream(Files.newOutputStream(dir.resolve(name + ".hgrm")))) {
                run.histogram().outputPercentileDistribution(hgrm, 1000.0); // microseconds to ms
            }
        }
    }
}
