package io.hedgerow.root.local;

import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.admission.AdmissionSettings;
import io.hedgerow.root.cost.BatchAdmissionSettings;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.placement.PlacementSettings;
import io.hedgerow.root.tail.TailSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How to start a {@link LocalCluster}.
 *
 * @param indexDir     the index to serve
 * @param leaves       leaf processes
 * @param replicas     copies of each partition
 * @param host         address every server binds
 * @param httpPort     the root's HTTP port (0: a free one)
 * @param runDirectory where pid files, port files and leaf logs go
 * @param launcher     how to start a leaf JVM
 * @param startTimeout how long to wait for each leaf to listen and for the root to reach them
 * @param faultInjection start the leaves with {@code --fault-injection}, so that
 *                     {@code /admin/leaves/{n}/delay} and {@code /stall} work (without it the
 *                     leaves refuse)
 * @param leafWarmup   each leaf's {@code --warmup}: the longest it runs warm-up searches before serving
 * @param hedge        the root's hedging settings
 * @param leafWorkers  each leaf's {@code --workers}; 0 for the machine's cores shared out between the leaves,
 *                     at least one each ({@code LeafSpawner.workersPerLeaf})
 * @param queryOfDeath each leaf's {@code --query-of-death}: a leaf halts when a query holding this
 *                     token reaches it; null for none; only with {@code faultInjection}
 * @param leafArguments more arguments for every leaf's command line (e.g. {@code --slice=0s}), after the others
 * @param admission    the root's admission control
 * @param adminToken   the token the root's admin routes require; null: a new random one, written to
 *                     {@code <run dir>/admin-token}
 * @param supervision  how leaf processes that die are restarted ({@link LeafSupervisor}); null: they
 *                     are not (they stay down until {@code POST /admin/leaves/{n}/restart})
 * @param batchAdmission how many batch sub-requests the root lets each leaf hold
 * @param writeToken   the token writes to {@code /documents} require; null: a new random one, written
 *                     to {@code <run dir>/write-token}
 * @param adaptation   the root's replica choice, stall detection and probation
 * @param placement    the root's re-replication, selective replication and rebalancing
 * @param tls          TLS on the links between root and leaves and between leaves, with a self-signed
 *                     certificate made for the run ({@link SelfSignedTls}, in the run directory)
 * @param leafBatching the root sends a search's primaries for one leaf in one message
 *                     ({@link io.hedgerow.root.cluster.ClusterConfig#leafBatching()})
 * @param coordination where the root keeps each partition's primary, term and in-sync set: ZooKeeper,
 *                     embedded ({@link ZooKeeperProcess}) or an ensemble; null: the root's memory. With
 *                     one, leaves keep their ports from run to run ({@link RunDirectory#leafPortsFile}),
 *                     as the stored in-sync sets name copies by address
 */
public record LocalClusterOptions(Path indexDir, int leaves, int replicas, String host, int httpPort,
        RunDirectory runDirectory, JavaLauncher launcher, Duration startTimeout, boolean faultInjection,
        Duration leafWarmup, HedgeSettings hedge, TailSettings tail, int leafWorkers, String queryOfDeath,
        List<String> leafArguments, AdmissionSettings admission, String adminToken,
        RestartPolicy.Settings supervision, BatchAdmissionSettings batchAdmission, String writeToken,
        AdaptationSettings adaptation, PlacementSettings placement, boolean tls, boolean leafBatching,
        LocalCoordination coordination) {
    public LocalClusterOptions {
        Objects.requireNonNull(placement, "placement");
        Objects.requireNonNull(admission, "admission");
        Objects.requireNonNull(batchAdmission, "batchAdmission");
        Objects.requireNonNull(adaptation, "adaptation");
        leafArguments = List.copyOf(leafArguments);
        if (queryOfDeath != null && (queryOfDeath.isEmpty() || !faultInjection)) {
            throw new IllegalArgumentException("queryOfDeath: '" + queryOfDeath
                    + "' (expected: a non-empty token, and only with fault injection)");
        }
        if (leafWorkers < 0) {
            throw new IllegalArgumentException("leafWorkers: " + leafWorkers + " (expected: >= 1, or 0 for the default)");
        }
        Objects.requireNonNull(hedge, "hedge");
        Objects.requireNonNull(tail, "tail");
        Objects.requireNonNull(indexDir, "indexDir");
        Objects.requireNonNull(runDirectory, "runDirectory");
        Objects.requireNonNull(launcher, "launcher");
        Objects.requireNonNull(leafWarmup, "leafWarmup");
        if (leaves < 1) {
            throw new IllegalArgumentException("leaves: " + leaves + " (expected: >= 1)");
        }
    }

    /** Without a query of death. */
    public LocalClusterOptions(Path indexDir, int leaves, int replicas, String host, int httpPort, RunDirectory runDirectory,
            JavaLauncher launcher, Duration startTimeout, boolean faultInjection, Duration leafWarmup,
            HedgeSettings hedge, TailSettings tail, int leafWorkers) {
        this(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout, faultInjection,
                leafWarmup, hedge, tail, leafWorkers, null, List.of());
    }

    /** With the default admission control and a generated admin token. */
    public LocalClusterOptions(Path indexDir, int leaves, int replicas, String host, int httpPort, RunDirectory runDirectory,
            JavaLauncher launcher, Duration startTimeout, boolean faultInjection, Duration leafWarmup,
            HedgeSettings hedge, TailSettings tail, int leafWorkers, String queryOfDeath, List<String> leafArguments) {
        this(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout, faultInjection,
                leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, AdmissionSettings.defaults(), null, null,
                BatchAdmissionSettings.defaults(), null, AdaptationSettings.defaults(), PlacementSettings.defaults(), false);
    }

    /** Without a coordination store: as the canonical constructor without {@code coordination}. */
    public LocalClusterOptions(Path indexDir, int leaves, int replicas, String host, int httpPort,
            RunDirectory runDirectory, JavaLauncher launcher, Duration startTimeout, boolean faultInjection,
            Duration leafWarmup, HedgeSettings hedge, TailSettings tail, int leafWorkers, String queryOfDeath,
            List<String> leafArguments, AdmissionSettings admission, String adminToken,
            RestartPolicy.Settings supervision, BatchAdmissionSettings batchAdmission, String writeToken,
            AdaptationSettings adaptation, PlacementSettings placement, boolean tls, boolean leafBatching) {
        this(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout, faultInjection,
                leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, adminToken, supervision,
                batchAdmission, writeToken, adaptation, placement, tls, leafBatching, null);
    }

    /** With leaf batching off: as the canonical constructor without {@code leafBatching} and {@code coordination}. */
    public LocalClusterOptions(Path indexDir, int leaves, int replicas, String host, int httpPort,
            RunDirectory runDirectory, JavaLauncher launcher, Duration startTimeout, boolean faultInjection,
            Duration leafWarmup, HedgeSettings hedge, TailSettings tail, int leafWorkers, String queryOfDeath,
            List<String> leafArguments, AdmissionSettings admission, String adminToken,
            RestartPolicy.Settings supervision, BatchAdmissionSettings batchAdmission, String writeToken,
            AdaptationSettings adaptation, PlacementSettings placement, boolean tls) {
        this(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout, faultInjection,
                leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, adminToken, supervision,
                batchAdmission, writeToken, adaptation, placement, tls, false);
    }

    public LocalClusterOptions withAdmission(AdmissionSettings value) {
        return new LocalClusterOptions(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, value, adminToken, supervision,
                batchAdmission, writeToken, adaptation, placement, tls, leafBatching, coordination);
    }

    /** The admin token to require; null for a new random one. */
    public LocalClusterOptions withAdminToken(String value) {
        return new LocalClusterOptions(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, value, supervision,
                batchAdmission, writeToken, adaptation, placement, tls, leafBatching, coordination);
    }

    /** Leaves restarted when they die, by this policy (null: not restarted). */
    public LocalClusterOptions withSupervision(RestartPolicy.Settings value) {
        return new LocalClusterOptions(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, adminToken,
                value, batchAdmission, writeToken, adaptation, placement, tls, leafBatching, coordination);
    }

    public LocalClusterOptions withFaultInjection(boolean enabled) {
        return new LocalClusterOptions(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout, enabled,
                leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, adminToken, supervision,
                batchAdmission, writeToken, adaptation, placement, tls, leafBatching, coordination);
    }

    /** Leaves that halt on a query holding {@code token} (null: none); needs fault injection. */
    public LocalClusterOptions withQueryOfDeath(String token) {
        return new LocalClusterOptions(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                faultInjection, leafWarmup, hedge, tail, leafWorkers, token, leafArguments, admission, adminToken, supervision,
                batchAdmission, writeToken, adaptation, placement, tls, leafBatching, coordination);
    }

    /** Leaves started with these extra command-line arguments (e.g. {@code --slice=0s}). */
    public LocalClusterOptions withLeafArguments(List<String> arguments) {
        return new LocalClusterOptions(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, arguments, admission, adminToken, supervision,
                batchAdmission, writeToken, adaptation, placement, tls, leafBatching, coordination);
    }

    /** The root's batch admission ({@link BatchAdmissionSettings#off()} sends batch work out as it comes). */
    public LocalClusterOptions withBatchAdmission(BatchAdmissionSettings value) {
        return new LocalClusterOptions(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, adminToken,
                supervision, value, writeToken, adaptation, placement, tls, leafBatching, coordination);
    }

    /** The write token to require; null for a new random one. */
    public LocalClusterOptions withWriteToken(String value) {
        return new LocalClusterOptions(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, adminToken,
                supervision, batchAdmission, value, adaptation, placement, tls, leafBatching, coordination);
    }

    /** The root's adaptation across requests (default: all on). */
    public LocalClusterOptions withAdaptation(AdaptationSettings value) {
        return new LocalClusterOptions(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, adminToken,
                supervision, batchAdmission, writeToken, value, placement, tls, leafBatching, coordination);
    }

    /** The root's re-replication, selective replication and rebalancing (default: re-replication only). */
    public LocalClusterOptions withPlacement(PlacementSettings value) {
        return new LocalClusterOptions(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, adminToken,
                supervision, batchAdmission, writeToken, adaptation, value, tls, leafBatching, coordination);
    }

    /** TLS on the cluster's links, with a certificate made for the run (default: plaintext). */
    public LocalClusterOptions withTls(boolean on) {
        return new LocalClusterOptions(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, adminToken,
                supervision, batchAdmission, writeToken, adaptation, placement, on, leafBatching, coordination);
    }

    /** Whether the root sends a search's primaries for one leaf in one message (default: off). */
    public LocalClusterOptions withLeafBatching(boolean on) {
        return new LocalClusterOptions(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, adminToken,
                supervision, batchAdmission, writeToken, adaptation, placement, tls, on, coordination);
    }

    /**
     * The root keeps each partition's primary, term and in-sync set in ZooKeeper: an embedded one
     * {@code local} starts, or an ensemble (null: in the root's memory, as by default).
     */
    public LocalClusterOptions withCoordination(LocalCoordination value) {
        return new LocalClusterOptions(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, adminToken,
                supervision, batchAdmission, writeToken, adaptation, placement, tls, leafBatching, value);
    }
}
