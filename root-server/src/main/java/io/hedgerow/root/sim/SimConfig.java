package io.hedgerow.root.sim;

import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.placement.PlacementSettings;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * One simulation's settings, kept as the options that wrote them ({@code leaves=1000},
 * {@code service=lognormal:2ms,6ms}) so that a sweep can vary any of them by name ({@link #with}),
 * and read into typed values once. Immutable.
 */
public final class SimConfig {
    /** Every option, with its default, in the order help and reports list them. */
    static final Map<String, String> DEFAULTS = defaultOptions();

    private final Map<String, String> options;
    final int leaves;
    final int partitions;
    final int replicas;
    final double rate;
    final double load;
    final int queries;
    final double warmup;
    final Set<SimPolicy> policies;
    final ServiceTime service;
    final int workers;
    final double contention;
    final long networkNanos;
    final long peerNanos;
    /** Cores shared by every leaf, the root and the client ({@link SharedCpu}); 0: each leaf's workers have cores of their own. */
    final int cores;
    /** How the shared cores divide themselves among their jobs ({@link SharedCpu#of}). */
    final String cpuSched;
    /** With shared cores: the root's CPU per message it handles (the HTTP request and answer, each sub-request and reply). */
    final long rootCpuNanos;
    /** With shared cores: a leaf's CPU per sub-request outside its service time (reading and writing it). */
    final long leafCpuNanos;
    /** With shared cores: the load generator's CPU per search, off the search's path. */
    final long clientCpuNanos;
    /** Partitions a search's hits lie in, on average; 0: ids and scores only, no fetch phase. */
    final double hits;
    final ServiceTime fetchService;
    final double slowFraction;
    final long slowNanos;
    /** The p99 of each search's cost multiplier (lognormal, median 1), shared by all its sub-requests; 1 for none. */
    final double queryCostP99;
    /** The request mix: each search's shape and what it costs at the leaves and the root ({@code mix}). */
    final SimMix mix;
    final long pauseEveryNanos;
    final long pauseNanos;
    /** How many leaves pause, the first ones: all of them unless {@code pause-leaves} says fewer. */
    final int pauseLeaves;
    /** Every leaf pauses at the same phase (background work aligned on the clock) rather than its own. */
    final boolean pauseAligned;
    final int degradedLeaves;
    final double degradedFactor;
    /** When the degraded leaves are slow: from this time until {@link #degradedUntilNanos} (Long.MAX_VALUE: for good). */
    final long degradedFromNanos;
    final long degradedUntilNanos;
    /** The root's adaptation across requests: replica choice, stall detection, probation. */
    final AdaptationSettings adaptation;
    final int crashLeaves;
    final long crashAtNanos;
    /** Partitions 0 to this one (excluded) whose searches cost {@link #skewFactor} times their drawn time. */
    final int skewPartitions;
    final double skewFactor;
    /**
     * The root's placement: re-replication after its grace ({@code re-replicate-after}, or off),
     * selective replication and rebalancing ({@code selective-replication}, {@code rebalancing}).
     */
    final PlacementSettings placement;
    /** How long a leaf takes to open and warm a partition it is told to serve. */
    final long openNanos;
    final long timeoutNanos;
    /** A fixed hedge delay, or 0 for the adaptive one. */
    final long hedgeAfterNanos;
    final double hedgePercentile;
    /** Extra sub-requests per primary the budget allows, a negative number for no budget, NaN for the root's default. */
    final double budget;
    final double minCoverage;
    final long slowThresholdNanos;
    final long seed;

    private static Map<String, String> defaultOptions() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("leaves", "100");
        d.put("partitions", "leaves");
        d.put("replicas", "auto");
        d.put("rate", "auto");
        d.put("load", "0.3");
        d.put("queries", "10000");
        d.put("warmup", "0.05");
        d.put("policy", "none");
        d.put("service", "lognormal:2ms,6ms");
        d.put("workers", "4");
        d.put("contention", "auto");
        d.put("network", "50us");
        d.put("peer", "50us");
        d.put("cores", "none");
        d.put("cpu-sched", "las");
        d.put("root-cpu", "0");
        d.put("leaf-cpu", "0");
        d.put("client-cpu", "0");
        d.put("hits", "0");
        d.put("fetch-service", "fixed:0");
        d.put("slow-fraction", "0");
        d.put("slow", "1s");
        d.put("query-cost", "1");
        d.put("mix", "none");
        d.put("mix-cost", SimMix.DEFAULT_COST);
        d.put("mix-root-cost", SimMix.DEFAULT_COST);
        d.put("mix-service", "none");
        d.put("pause-every", "0");
        d.put("pause", "0");
        d.put("pause-leaves", "all");
        d.put("pause-phase", "random");
        d.put("degraded-leaves", "0");
        d.put("degraded-factor", "10");
        d.put("degraded-from", "0");
        d.put("degraded-until", "never");
        d.put("adapt", "choice+stall+probation");
        d.put("crash-leaves", "0");
        d.put("crash-at", "1s");
        d.put("skew-partitions", "0");
        d.put("skew-factor", "1");
        d.put("selective-replication", "off");
        d.put("rebalancing", "off");
        d.put("re-replicate-after", "30s");
        d.put("open-time", "3s");
        d.put("max-opening", "2");
        d.put("timeout", "10s");
        d.put("hedge-after", "adaptive");
        d.put("hedge-percentile", "95");
        d.put("budget", "default");
        d.put("min-coverage", "0.9");
        d.put("slow-threshold", "500ms");
        d.put("seed", "1");
        return Collections.unmodifiableMap(d);
    }

    private SimConfig(Map<String, String> options) {
        this.options = options;
        this.leaves = positiveInt("leaves");
        this.partitions = get("partitions").equals("leaves") ? leaves : positiveInt("partitions");
        this.replicas = get("replicas").equals("auto") ? Math.min(2, leaves) : positiveInt("replicas");
        if (replicas > leaves) {
            throw new IllegalArgumentException("replicas: " + replicas + " (expected: <= leaves " + leaves + ")");
        }
        this.rate = get("rate").equals("auto") ? 0 : positiveDouble("rate");
        this.load = fraction("load", false);
        this.queries = positiveInt("queries");
        this.warmup = fraction("warmup", true);
        this.policies = SimPolicy.parse(get("policy"));
        this.service = ServiceTime.parse(get("service"));
        this.workers = positiveInt("workers");
        this.networkNanos = SimDurations.parseNanos(get("network"));
        this.peerNanos = SimDurations.parseNanos(get("peer"));
        this.cores = get("cores").equals("none") ? 0 : positiveInt("cores");
        this.cpuSched = get("cpu-sched");
        SharedCpu.of(cpuSched, 1, new EventQueue()); // refuses an unknown discipline now, not mid-run
        // Shared cores are the contention: a busy machine slows all work, so no per-leaf factor on top.
        this.contention = get("contention").equals("auto") ? (cores > 0 ? 0 : 0.2) : nonNegativeDouble("contention");
        this.rootCpuNanos = SimDurations.parseNanos(get("root-cpu"));
        this.leafCpuNanos = SimDurations.parseNanos(get("leaf-cpu"));
        this.clientCpuNanos = SimDurations.parseNanos(get("client-cpu"));
        if (cores == 0 && (rootCpuNanos > 0 || leafCpuNanos > 0 || clientCpuNanos > 0)) {
            throw new IllegalArgumentException("root-cpu " + get("root-cpu") + ", leaf-cpu " + get("leaf-cpu")
                    + ", client-cpu " + get("client-cpu") + " (expected: 0 without cores: CPU outside the leaves'"
                    + " workers is only modelled on shared cores)");
        }
        this.hits = nonNegativeDouble("hits");
        this.fetchService = ServiceTime.parse(get("fetch-service"));
        this.slowFraction = fraction("slow-fraction", true);
        this.slowNanos = SimDurations.parseNanos(get("slow"));
        this.queryCostP99 = parseDouble("query-cost");
        if (!(queryCostP99 >= 1) || Double.isInfinite(queryCostP99)) {
            throw new IllegalArgumentException("query-cost: " + get("query-cost") + " (expected: >= 1, the p99 of a"
                    + " search's cost multiplier; 1 for none)");
        }
        this.mix = SimMix.parse(get("mix"), get("mix-cost"), get("mix-root-cost"), get("mix-service"));
        this.pauseEveryNanos = SimDurations.parseNanos(get("pause-every"));
        this.pauseNanos = SimDurations.parseNanos(get("pause"));
        if (pauseNanos > 0 && pauseEveryNanos <= pauseNanos) {
            throw new IllegalArgumentException("pause-every: " + get("pause-every") + " (expected: longer than pause "
                    + get("pause") + ")");
        }
        this.pauseLeaves = get("pause-leaves").equals("all") ? leaves : nonNegativeInt("pause-leaves");
        if (pauseLeaves > leaves) {
            throw new IllegalArgumentException("pause-leaves: " + pauseLeaves + " (expected: all, or <= leaves " + leaves + ")");
        }
        this.pauseAligned = switch (get("pause-phase")) {
            case "random" -> false;
            case "aligned" -> true;
            default -> throw new IllegalArgumentException("pause-phase: " + get("pause-phase")
                    + " (expected: random or aligned)");
        };
        this.degradedLeaves = nonNegativeInt("degraded-leaves");
        this.degradedFactor = positiveDouble("degraded-factor");
        this.degradedFromNanos = SimDurations.parseNanos(get("degraded-from"));
        this.degradedUntilNanos = get("degraded-until").equals("never") ? Long.MAX_VALUE
                : SimDurations.parseNanos(get("degraded-until"));
        if (degradedUntilNanos <= degradedFromNanos) {
            throw new IllegalArgumentException("degraded-until: " + get("degraded-until") + " (expected: never, or after"
                    + " degraded-from " + get("degraded-from") + ")");
        }
        this.adaptation = parseAdaptation(get("adapt"));
        this.crashLeaves = nonNegativeInt("crash-leaves");
        this.crashAtNanos = SimDurations.parseNanos(get("crash-at"));
        this.skewPartitions = nonNegativeInt("skew-partitions");
        this.skewFactor = positiveDouble("skew-factor");
        if (skewPartitions > partitions) {
            throw new IllegalArgumentException("skew-partitions: " + skewPartitions + " (expected: <= partitions "
                    + partitions + ")");
        }
        this.placement = (get("re-replicate-after").equals("off")
                ? PlacementSettings.off()
                : PlacementSettings.defaults()
                        .withGrace(Duration.ofNanos(positiveNanos("re-replicate-after")))
                        .withMaxOpening(positiveInt("max-opening")))
                .withSelectiveReplication(onOff("selective-replication"))
                .withRebalancing(onOff("rebalancing"));
        this.openNanos = SimDurations.parseNanos(get("open-time"));
        if (degradedLeaves > leaves || crashLeaves > leaves) {
            throw new IllegalArgumentException("degraded-leaves " + degradedLeaves + ", crash-leaves " + crashLeaves
                    + " (expected: <= leaves " + leaves + ")");
        }
        this.timeoutNanos = SimDurations.parseNanos(get("timeout"));
        if (timeoutNanos <= 0) {
            throw new IllegalArgumentException("timeout: " + get("timeout") + " (expected: > 0)");
        }
        this.hedgeAfterNanos = get("hedge-after").equals("adaptive") ? 0 : SimDurations.parseNanos(get("hedge-after"));
        this.hedgePercentile = positiveDouble("hedge-percentile");
        this.budget = switch (get("budget")) {
            case "none" -> -1;
            case "default" -> Double.NaN;
            default -> fraction("budget", true);
        };
        this.minCoverage = fraction("min-coverage", false);
        this.slowThresholdNanos = SimDurations.parseNanos(get("slow-threshold"));
        this.seed = Long.parseLong(get("seed"));
    }

    /** {@code none}, or {@code choice}, {@code stall} and {@code probation} joined by {@code +}. */
    private static AdaptationSettings parseAdaptation(String text) {
        AdaptationSettings settings = AdaptationSettings.off();
        if (text.strip().equals("none")) {
            return settings;
        }
        for (String part : text.split("\\+")) {
            settings = switch (part.strip()) {
                case "choice" -> settings.withLatencyAwareChoice(true);
                case "stall" -> settings.withStallDetection(true);
                case "probation" -> settings.withProbation(true);
                default -> throw new IllegalArgumentException("adapt: '" + part.strip() + "' (expected: none, or choice,"
                        + " stall and probation joined by +)");
            };
        }
        return settings;
    }

    /** The defaults. */
    public static SimConfig defaults() {
        return new SimConfig(new LinkedHashMap<>(DEFAULTS));
    }

    /** This config with one option changed; the value is checked now. */
    public SimConfig with(String option, String value) {
        if (!DEFAULTS.containsKey(option)) {
            throw new IllegalArgumentException("option: '" + option + "' (expected: one of " + DEFAULTS.keySet() + ")");
        }
        Map<String, String> changed = new LinkedHashMap<>(options);
        changed.put(option, value.strip());
        return new SimConfig(changed);
    }

    /** The option as written (or its default). */
    public String get(String option) {
        String value = options.get(option);
        if (value == null) {
            throw new IllegalArgumentException("option: '" + option + "' (expected: one of " + DEFAULTS.keySet() + ")");
        }
        return value;
    }

    /** Every option and its value, defaults included. */
    public Map<String, String> options() {
        return Collections.unmodifiableMap(options);
    }

    /**
     * Searches a second: the rate given, or the one that keeps the leaves' workers busy {@code load}
     * of the time with primaries alone (each search asks each partition once), a structured mix's
     * mean cost included (its shapes' multiples; the query cost's spread is not).
     */
    public double searchesPerSecond() {
        if (rate > 0) {
            return rate;
        }
        double busyPerSearchNanos = (double) partitions * service.meanNanos() * mix.meanLeafCost(service.meanNanos());
        return load * leaves * workers * 1e9 / busyPerSearchNanos;
    }

    private int positiveInt(String option) {
        int value = parseInt(option);
        if (value < 1) {
            throw new IllegalArgumentException(option + ": " + value + " (expected: >= 1)");
        }
        return value;
    }

    private long positiveNanos(String option) {
        long value = SimDurations.parseNanos(get(option));
        if (value <= 0) {
            throw new IllegalArgumentException(option + ": " + get(option) + " (expected: a duration > 0, or off)");
        }
        return value;
    }

    private boolean onOff(String key) {
        return switch (get(key)) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException(key + ": '" + get(key) + "' (expected: on or off)");
        };
    }

    private int nonNegativeInt(String option) {
        int value = parseInt(option);
        if (value < 0) {
            throw new IllegalArgumentException(option + ": " + value + " (expected: >= 0)");
        }
        return value;
    }

    private int parseInt(String option) {
        try {
            return Integer.parseInt(get(option).replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": '" + get(option) + "' (expected: a whole number)", e);
        }
    }

    private double positiveDouble(String option) {
        double value = parseDouble(option);
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(option + ": " + get(option) + " (expected: > 0)");
        }
        return value;
    }

    private double nonNegativeDouble(String option) {
        double value = parseDouble(option);
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(option + ": " + get(option) + " (expected: >= 0)");
        }
        return value;
    }

    private double fraction(String option, boolean zeroAllowed) {
        double value = parseDouble(option);
        if (!(zeroAllowed ? value >= 0 : value > 0) || value > 1) {
            throw new IllegalArgumentException(option + ": " + get(option) + " (expected: " + (zeroAllowed ? ">= 0" : "> 0")
                    + " and <= 1)");
        }
        return value;
    }

    private double parseDouble(String option) {
        try {
            return Double.parseDouble(get(option));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": '" + get(option) + "' (expected: a number)", e);
        }
    }

    @Override
    public String toString() {
        return options.toString();
    }
}
