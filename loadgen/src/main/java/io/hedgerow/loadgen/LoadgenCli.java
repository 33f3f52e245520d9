package io.hedgerow.loadgen;

import io.hedgerow.cli.LogSetup;
import io.hedgerow.common.time.Durations;
import io.hedgerow.loadgen.report.Capacity;
import io.hedgerow.loadgen.report.CapacityText;
import io.hedgerow.loadgen.report.CompareCommand;
import io.hedgerow.loadgen.report.PhaseResult;
import io.hedgerow.loadgen.report.ReadCommand;
import io.hedgerow.loadgen.report.ReportWriter;
import io.hedgerow.loadgen.report.ResultTable;
import io.hedgerow.loadgen.report.RunResult;
import io.hedgerow.loadgen.queries.RequestMix;
import io.hedgerow.loadgen.run.CapacitySearch;
import io.hedgerow.loadgen.run.LoadRun;
import io.hedgerow.loadgen.run.PhaseSpec;
import io.hedgerow.loadgen.run.RequestSource;
import io.hedgerow.loadgen.scenario.FaultRunner;
import io.hedgerow.loadgen.scenario.OptionsCheck;
import io.hedgerow.loadgen.scenario.PhaseFaults;
import io.hedgerow.loadgen.scenario.RequestOptions;
import io.hedgerow.loadgen.scenario.Scenario;
import io.hedgerow.loadgen.scenario.ScenarioOverrides;
import io.hedgerow.loadgen.scenario.ScenarioPhase;
import io.hedgerow.root.local.RunDirectory;
import io.netty.util.ResourceLeakDetector;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code hedgerow loadgen}: loads a Hedgerow root over HTTP and reports its latency honestly
 * (open loop, corrected for coordinated omission), in one of three ways: a steady run at a rate, a
 * search for the highest sustainable rate, or a scenario file of phases with faults.
 */
@Command(name = "hedgerow loadgen", mixinStandardHelpOptions = true, sortOptions = false, version = "hedgerow loadgen 0.1.0",
        description = {"Load a Hedgerow cluster over HTTP and measure its latency honestly.",
                "Open loop by default: requests start on a schedule whether or not earlier ones finished, and latency"
                        + " counts from each request's intended start, so stalls are not hidden (coordinated omission).",
                "Writes a results folder: a table per phase, .hgrm percentile files, summary.json and a latency chart.",
                "",
                "Examples:",
                "  ./hedgerow loadgen --rate 1000 --duration 30s",
                "  ./hedgerow loadgen --find-capacity --max-p99-ms 20",
                "  ./hedgerow loadgen --scenario docs/scenarios/leaf-pause.json",
                "  ./hedgerow loadgen selftest",
                "  ./hedgerow loadgen compare results/A results/B",
                "  ./hedgerow loadgen read results/A capacity.rate_per_s",
                "  ./hedgerow loadgen durability --minutes 2 --seed 7 --run-dir data/run",
                ""},
        subcommands = {SelfTestCommand.class, QueriesCommand.class, CompareCommand.class, ReadCommand.class,
                DurabilityCommand.class})
public final class LoadgenCli implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--target", defaultValue = "http://127.0.0.1:8080",
            description = "Root server URL (default: ${DEFAULT-VALUE}).")
    private URI target;

    @Option(names = "--rate", defaultValue = "200", description = "Requests per second, open loop (default: ${DEFAULT-VALUE}).")
    private double rate;

    @Option(names = "--duration", defaultValue = "30s", description = "Measured time, e.g. 30s, 2m (default: ${DEFAULT-VALUE}).")
    private String duration;

    @Option(names = "--warmup", defaultValue = "10s",
            description = "Unmeasured warm-up at the same rate first, 0s for none (default: ${DEFAULT-VALUE}).")
    private String warmup;

    @Option(names = "--arrival", defaultValue = "poisson",
            description = "Open-loop arrivals: poisson (bursty, like real users) or constant (default: ${DEFAULT-VALUE}).")
    private String arrival;

    @Option(names = "--closed-loop", paramLabel = "N",
            description = "Closed loop instead: keep N requests in flight, each sent when one finishes. Latency then counts from"
                    + " the actual send and HIDES server stalls; use it for throughput, not for tails.")
    private Integer closedLoop;

    @Option(names = "--connections", defaultValue = "2000",
            description = "In-flight cap (connections). Requests beyond it are dropped and reported, never queued"
                    + " (default: ${DEFAULT-VALUE}).")
    private int connections;

    @Option(names = "--queries", paramLabel = "FILE",
            description = "Query set (category<TAB>query lines). Default: generated from the Europarl index on first use,"
                    + " <data>/queries/europarl-<seed>.tsv.")
    private Path queries;

    @Option(names = "--mix", paramLabel = "SPEC",
            description = "Query mix: a preset (default: mostly cheap queries with 2%% each of large ORs and prefixes;"
                    + " cheap: the same without those two; terms: single terms only) or category=weight,..., e.g."
                    + " high_term=30,phrase=10,large_or=2 (default: default).")
    private String mix;

    @Option(names = "--request-mix", paramLabel = "plain|structured[:SHAPE]", defaultValue = "plain",
            description = {"Shape of each search (default: ${DEFAULT-VALUE}). plain: GET /search?q=QUERY. structured: the same"
                    + " queries as JSON bodies of POST /search over the Europarl demo's typed fields (lang, date,"
                    + " body_length), each request drawing a shape: plain 20%% (the query alone), filtered 25%% (a"
                    + " non-scoring filter: lang term or terms, a date range of 1-5 years, a body_length range, or a bool"
                    + " of them), sorted 20%% (by date or body_length, desc or asc, the score breaking ties), paged 15%%"
                    + " (from k..5k), faceted 20%% (aggs: terms on lang, a yearly date_histogram, stats or a range on"
                    + " body_length, or a panel of three). Seeded: the same seed sends the same queries and bodies."
                    + " The request options (k, snippets, cache...) go in every body; --routing is refused with it."
                    + " structured:SHAPE (plain, filtered, sorted, paged or faceted): every request of that shape, the"
                    + " same queries; the leaves' service-time tables of such a run are that shape's, for simulate"
                    + " --mix-service."})
    private String requestMix;

    @Option(names = "--seed", defaultValue = "42", description = "Seed for arrivals and query choice (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Mixin
    private RequestFlags request;

    @Mixin
    private CapacityFlags capacity;

    @Option(names = "--scenario", paramLabel = "FILE",
            description = {"Run the phases of a scenario file (JSON, or YAML for .yaml/.yml; see docs/loadgen.md), with their faults.",
                    "Given with it, --rate sets every open-loop phase's rate, --warmup the length of its unrecorded"
                            + " (warm-up) phases, --mix and the request options apply to every phase."})
    private Path scenario;

    @Option(names = "--phase-duration", paramLabel = "DURATION",
            description = "With --scenario: run every recorded phase for this long instead of its own duration"
                    + " (e.g. 5s for a smoke run of a long scenario).")
    private String phaseDuration;

    @Option(names = "--run-dir", paramLabel = "DIR",
            description = "Pid files of the local cluster, for faults (default: <data>/run).")
    private Path runDir;

    @Option(names = "--data", defaultValue = "${env:HEDGEROW_DATA:-data}", paramLabel = "DIR",
            description = "Data folder (default: ${DEFAULT-VALUE}).")
    private Path data;

    @Option(names = "--results", defaultValue = "results", paramLabel = "DIR",
            description = "Where results folders go (default: ${DEFAULT-VALUE}).")
    private Path results;

    @Option(names = "--label", description = "Name of this run in reports (default: the scenario's name, or 'run').")
    private String label;

    @Mixin
    private ReadyFlags ready;

    /** Read by {@link LogSetup} in {@link #main} before picocli runs; declared so that it is accepted and listed. */
    @Option(names = LogSetup.OPTION, scope = CommandLine.ScopeType.INHERIT, paramLabel = "text|json",
            description = "Log lines as text (the default) or as JSON objects, one a line. The environment"
                    + " variable HEDGEROW_LOG_FORMAT does the same.")
    private String logFormat;

    public static void main(String[] args) {
        try {
            LogSetup.apply(args, System.getenv()); // before anything asks for a logger
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.exit(2);
        }
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // Netty's default leak detection takes a stack trace for one buffer in 128, a hundred a second
            // here: cost in the generator's own latency. The tests run with it on.
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        System.exit(new CommandLine(new LoadgenCli()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        PrintStream out = new PrintStream(System.out, true);
        try {
            RequestOptions options = request.toOptions(); // checks them before anything slow
            RequestMix.parse(requestMix);
            ready.check(scenario != null, capacity.enabled);
            if (scenario != null) {
                return runScenario(out);
            }
            Workload workload = Workload.load(queries, data, seed, out);
            RequestSource requests = workload.requests(mix, options, RequestMix.parse(requestMix), seed);
            return capacity.enabled ? findCapacity(out, requests, workload) : steady(out, requests, workload);
        } catch (IOException | IllegalArgumentException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
            return 1;
        }
    }

    private int steady(PrintStream out, RequestSource requests, Workload workload) throws Exception {
        Map<String, String> settings = settings(workload, target, seed);
        settings.put("load", closedLoop != null ? "closed loop, " + closedLoop + " in flight"
                : String.format(Locale.ROOT, "open loop (%s) at %.0f req/s", arrival, rate));
        settings.put("duration", duration);
        settings.put("warmup", warmup);
        List<PhaseResult> phases = new ArrayList<>();
        PhaseSpec main = closedLoop != null
                ? new PhaseSpec("closed-" + closedLoop, Durations.parse(duration), 0, "closed", closedLoop, true)
                : new PhaseSpec("rate-" + Math.round(rate), Durations.parse(duration), rate, arrival, 0, true);
        ready.awaitIfAsked(out, main, requests, seed, target);
        Instant startedAt = Instant.now();
        try (LoadRun run = new LoadRun(target, connections, out)) {
            noteLoop(out, settings, run);
            out.printf(Locale.ROOT, "Loading %s: %s for %s%s%n", target,
                    main.closedLoop() ? "closed loop, " + closedLoop + " in flight" : "open loop (" + arrival + ") at "
                            + Math.round(rate) + " req/s", duration, warmupLabel());
            warmUp(run, main, requests);
            phases.add(run.run(main, requests, seed + 1));
        }
        return report(out, label != null ? label : "run", startedAt, target, settings, phases);
    }

    private int findCapacity(PrintStream out, RequestSource requests, Workload workload) throws Exception {
        CapacitySearch search = capacity.newSearch();
        String step = capacity.step;
        String coolDown = capacity.coolDown;
        double startRate = capacity.startRate;
        Duration stepLength = Durations.parse(step);
        Duration confirmLength = Durations.parse(capacity.confirmDuration);
        Duration coolDownLength = Durations.parse(coolDown);
        Map<String, String> settings = settings(workload, target, seed);
        settings.put("load", String.format(Locale.ROOT, "capacity search, open loop (%s), steps of %s from %.0f req/s"
                + " up to %.0f, %s cool-down between steps, confirmed by a %s rerun", arrival, step, startRate,
                capacity.maxRate, coolDown, capacity.confirmDuration));
        settings.put("limits", search.limits());
        List<PhaseResult> steps = new ArrayList<>();
        Instant startedAt = Instant.now();
        out.printf(Locale.ROOT, "Finding the capacity of %s: steps of %s from %.0f req/s with %s cool-downs; limits %s%n",
                target, step, startRate, coolDown, search.limits());
        try (LoadRun run = new LoadRun(target, connections, out)) {
            noteLoop(out, settings, run);
            warmUp(run, new PhaseSpec("warmup", stepLength, startRate, arrival, 0, false), requests);
            while (search.nextRate().isPresent()) {
                double stepRate = Math.round(search.nextRate().getAsDouble());
                boolean confirming = search.confirming();
                coolDown(out, coolDownLength);
                String name = (confirming ? "confirm-" : "rate-") + Math.round(stepRate);
                PhaseResult result = run.run(new PhaseSpec(name, confirming ? confirmLength : stepLength, stepRate,
                        arrival, 0, true), requests, seed + steps.size() + 1);
                String failure = search.failure(result);
                search.observe(result);
                steps.add(result);
                out.printf(Locale.ROOT, "  %s %.0f req/s: achieved %.0f, p99 %.2f ms, errors %.2f%%, dropped %d, lag p99 %.2f ms"
                        + " -> %s%n", confirming ? "confirm" : "step", stepRate, result.achievedRate(),
                        result.percentileMillis(99), result.errorRate() * 100, result.dropped(), result.lagMillis(99),
                        failure == null ? "within limits" : "BREAKS a limit (" + failure + ")");
            }
        }
        Capacity capacity = search.result();
        settings.put("capacity", CapacityText.describe(capacity));
        int code = report(out, label != null ? label : "capacity", startedAt, target, settings, steps, capacity);
        out.printf(Locale.ROOT, "%nCapacity: %s%n", CapacityText.describe(capacity));
        return code;
    }

    /** Records what the generator's loop runs at, and warns when it could not be raised. */
    static void noteLoop(PrintStream out, Map<String, String> settings, LoadRun run) {
        settings.put("generator loop", run.loopPriority());
        if (run.loopPriority().startsWith("normal")) {
            out.println("warning: the generator's event loop runs at " + run.loopPriority()
                    + "; with servers on the same cores its sends may run late (see the lag column)");
        }
    }

    /** An idle pause before a capacity step, so it does not start with the last one's backlog and garbage. */
    private static void coolDown(PrintStream out, Duration length) throws InterruptedException {
        if (!length.isZero()) {
            out.printf("  (cooling down %s)%n", Durations.format(length));
            Thread.sleep(length.toMillis());
        }
    }

    private int runScenario(PrintStream out) throws Exception {
        Scenario file = Scenario.read(scenario);
        URI root = file.target() != null && !given("--target") ? URI.create(file.target()) : target;
        ScenarioOverrides overrides = scenarioOverrides();
        long scenarioSeed = file.seed() != null ? file.seed() : seed;
        Workload workload = Workload.load(file.queries() != null ? Path.of(file.queries()) : queries, data, scenarioSeed, out);
        Map<String, String> settings = settings(workload, root, scenarioSeed);
        settings.put("scenario", scenario.toString());
        settings.put("mix", overrides.mix() != null ? overrides.mix() : file.mix() != null ? file.mix() : "default");
        if (!overrides.describe().isEmpty()) {
            settings.put("overrides", overrides.describe());
        }
        List<PhaseSpec> specs = file.phases().stream().map(overrides::apply).toList();
        List<RequestSource> sources = new ArrayList<>();
        for (int i = 0; i < file.phases().size(); i++) {
            ScenarioPhase phase = file.phases().get(i);
            sources.add(workload.requests(overrides.mixOf(file, phase), overrides.requestOf(file, phase),
                    RequestMix.parse(requestMix), scenarioSeed + i));
        }
        List<PhaseResult> phases = new ArrayList<>();
        Instant startedAt = Instant.now();
        RunDirectory run = new RunDirectory(runDir != null ? runDir : data.resolve("run"));
        int failedFaults;
        try (FaultRunner faults = new FaultRunner(run, root, out);
                LoadRun load = new LoadRun(root, file.connections() != null ? file.connections() : connections, out)) {
            noteLoop(out, settings, load);
            Thread undo = new Thread(faults::close, "undo-faults");
            Runtime.getRuntime().addShutdownHook(undo);
            for (ScenarioPhase phase : file.phases()) {
                faults.requireLeaves(phase.faults());
            }
            OptionsCheck.warnRefused(out, root, file, overrides);
            out.printf("Scenario %s: %d phases against %s%s%n", file.name(), file.phases().size(), root,
                    overrides.describe().isEmpty() ? "" : " (" + overrides.describe() + ")");
            for (int i = 0; i < file.phases().size(); i++) {
                ScenarioPhase phase = file.phases().get(i);
                PhaseSpec phaseSpec = specs.get(i);
                out.printf(Locale.ROOT, "Phase %s: %s%s for %s%s%s%n", phase.name(), phaseSpec.mode(),
                        phaseSpec.closedLoop() ? " x" + phaseSpec.concurrency() : " at " + Math.round(phaseSpec.rate()) + " req/s",
                        Durations.format(phaseSpec.duration()), phaseSpec.record() ? "" : " (warm-up, not recorded)",
                        phase.faults().isEmpty() ? "" : ", faults: " + phase.faults());
                faults.startPhase(phase.faults(), phaseSpec.duration());
                PhaseResult result = null;
                PhaseFaults applied;
                try {
                    if (phaseSpec.record()) {
                        result = load.run(phaseSpec, sources.get(i), scenarioSeed + 100 + i);
                    } else {
                        // In two parts, like every warm-up: the phase after it starts past the JIT's recompile.
                        load.warmUp(phaseSpec, sources.get(i), scenarioSeed + 100 + i);
                    }
                } finally {
                    applied = faults.endPhase();
                }
                if (!applied.clean()) {
                    out.printf("warning: faults of phase %s: %s%n", phase.name(), applied.summary());
                }
                if (result != null) {
                    phases.add(result.withFaults(applied));
                }
            }
            Runtime.getRuntime().removeShutdownHook(undo);
            failedFaults = faults.failedActions();
        }
        if (failedFaults > 0) {
            out.printf("warning: %d fault action%s failed (the 'fault:' lines above say why); the phases ran without them%n",
                    failedFaults, failedFaults == 1 ? "" : "s");
        }
        return report(out, label != null ? label : file.name(), startedAt, root, settings, phases);
    }

    private boolean given(String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    /** The command line's changes to a scenario: only options given explicitly count. */
    private ScenarioOverrides scenarioOverrides() {
        return new ScenarioOverrides(given("--rate") ? rate : null,
                phaseDuration != null ? Durations.parse(phaseDuration) : null,
                given("--warmup") ? Durations.parse(warmup) : null,
                given("--mix") ? mix : null,
                request.toOptions());
    }

    private void warmUp(LoadRun run, PhaseSpec main, RequestSource requests) throws InterruptedException {
        if (Durations.parse(warmup).isZero()) {
            return;
        }
        run.warmUp(new PhaseSpec("warmup", Durations.parse(warmup), main.closedLoop() ? 1 : main.rate(), main.arrival(),
                main.concurrency(), false), requests, seed);
    }

    private String warmupLabel() {
        return Durations.parse(warmup).isZero() ? "" : " after a " + warmup + " warm-up";
    }

    private Map<String, String> settings(Workload workload, URI loaded, long runSeed) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("target", loaded.toString());
        settings.put("queries", workload.describe());
        settings.put("mix", mix != null ? mix : "default");
        settings.put("request mix", RequestMix.parse(requestMix).describe());
        settings.put("seed", String.valueOf(runSeed));
        settings.put("connections", String.valueOf(connections));
        String query = request.toOptions().toQueryString();
        if (!query.isEmpty()) {
            settings.put("request", query.substring(1));
        }
        settings.put("machine", Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.name")
                + " " + System.getProperty("os.arch") + ", Java " + Runtime.version() + ", " + collectors());
        return settings;
    }

    /** The JVM's garbage collectors, for the record: their pauses land in the generator's own latency. */
    static String collectors() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
                .collect(Collectors.joining(", ", "GC: ", ""));
    }

    private int report(PrintStream out, String runLabel, Instant startedAt, URI loaded, Map<String, String> settings,
            List<PhaseResult> phases) throws IOException {
        return report(out, runLabel, startedAt, loaded, settings, phases, null);
    }

    private int report(PrintStream out, String runLabel, Instant startedAt, URI loaded, Map<String, String> settings,
            List<PhaseResult> phases, Capacity capacity) throws IOException {
        RunResult run = new RunResult(runLabel, startedAt, loaded.toString(), settings, phases, capacity);
        out.println();
        out.print(ResultTable.render(phases));
        Path folder = ReportWriter.write(run, results);
        out.println("Results: " + folder + " (report.txt, summary.json, latency.png, <phase>.hgrm and .hlog)");
        return 0;
    }
}
