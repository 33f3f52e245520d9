package io.hedgerow.root.http;

import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.tail.TailSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixture of the root's HTTP tests over real sockets: two leaves on loopback serving an index
 * of four real Lucene partitions, started once per test class; a root of each test's own HTTP
 * settings started on those leaves ({@link #root}); and an HTTP/1.1 client. What a test opens
 * (roots, sockets, log captures) is closed after it ({@link #afterEach}), and a delay it injected
 * into the leaves is lifted.
 *
 * <p>The roots run without canaries: a search held at the leaves ({@link #holdSearches}) must not be
 * taken for a dangerous one.
 */
final class RootOnLeaves implements AutoCloseable {
    static final int LEAVES = 2;
    /** How long a test waits for anything: a deadline, not a timing claim. */
    static final Duration PATIENCE = Duration.ofSeconds(30);

    private final EmbeddedCluster cluster;
    private final int replicas;
    private final boolean faultInjection;
    private final HttpClient http;
    private final List<AutoCloseable> opened = new ArrayList<>();

    private RootOnLeaves(EmbeddedCluster cluster, int replicas, boolean faultInjection) {
        this.cluster = cluster;
        this.replicas = replicas;
        this.faultInjection = faultInjection;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(PATIENCE).build();
    }

    /**
     * @param index          the index's name
     * @param seed           the seed of its 200 test documents
     * @param replicas       copies of each partition (1 or 2)
     * @param faultInjection whether tests may hold searches at the leaves ({@link #holdSearches})
     */
    static RootOnLeaves start(Path dataDir, String index, long seed, int replicas, boolean faultInjection)
            throws Exception {
        EmbeddedCluster cluster = EmbeddedCluster.builder(dataDir)
                .documents(index, IndexConfig.defaults(), TestData.documents(seed, 200))
                .leaves(LEAVES).partitions(4).replicas(replicas)
                .faultInjection(faultInjection)
                .tail(TailSettings.defaults().withCanaries(0))
                .start();
        return new RootOnLeaves(cluster, replicas, faultInjection);
    }

    HttpClient http() {
        return http;
    }

    /** A root on the leaves with {@code settings}, closed after the test. */
    RootServer root(HttpSettings settings) throws Exception {
        List<String> leaves = cluster.leaves().stream().map(LeafServer::address).toList();
        RootServer root = RootServer.start(ClusterConfig.of(cluster.manifest(), leaves, replicas)
                        .withDefaultTimeout(Duration.ofSeconds(20)).withTail(TailSettings.defaults().withCanaries(0))
                        .withClusterSecret(cluster.root().cluster().config().clusterSecret()),
                settings, PATIENCE, null, ClusterState.randomRootId());
        return closeAfterTest(root);
    }

    /** {@code closeable}, closed after the test (in the reverse order of opening). */
    <T extends AutoCloseable> T closeAfterTest(T closeable) {
        opened.add(closeable);
        return closeable;
    }

    /** A delay at every leaf long enough that a search stays in flight while the test acts. */
    void holdSearches() {
        delayLeaves(InjectedDelay.of(Duration.ofMillis(400), 1.0, Duration.ofSeconds(60)));
    }

    /** Lifts {@link #holdSearches}'s delay: held searches answer. */
    void releaseSearches() {
        delayLeaves(InjectedDelay.NONE);
    }

    private void delayLeaves(InjectedDelay delay) {
        if (!faultInjection) {
            throw new IllegalStateException("faultInjection: false (expected: true to hold searches)");
        }
        for (int leaf = 0; leaf < LEAVES; leaf++) {
            cluster.root().leafFaults().injectDelay(leaf, delay).join();
        }
    }

    static HttpRequest.Builder request(RootServer root, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + root.httpPort() + path)).timeout(PATIENCE);
    }

    static HttpRequest get(RootServer root, String path) {
        return request(root, path).GET().build();
    }

    /** Closes what the test opened, last first, and lifts any delay it left at the leaves. */
    void afterEach() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
        if (faultInjection) {
            releaseSearches();
        }
    }

    @Override
    public void close() {
        http.close();
        cluster.close();
    }
}
