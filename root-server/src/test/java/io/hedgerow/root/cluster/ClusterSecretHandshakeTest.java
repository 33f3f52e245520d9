package io.hedgerow.root.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.SearchRequest;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.server.LeafConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.Await;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real root and a real leaf of a cluster with a shared secret: the right one serves, a wrong one is refused. */
class ClusterSecretHandshakeTest {
    private static final String SECRET = "0123456789abcdef-cluster-secret";
    /**
     * A refused root's start: it returns at the refusal, then waits up to this long for the write
     * path to compare replicas the refusing leaf never answers (10 s at a longer timeout).
     */
    private static final Duration REFUSED_READY = Duration.ofSeconds(2);
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    static Path dataDir;

    private static PartitionStore store;

    @BeforeAll
    static void buildIndex() throws IOException {
        store = new PartitionStore(dataDir.resolve("secret"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(2), IndexProgress.none())
                .build(store, "secret", IndexConfig.defaults(), TestData.documents(3, 60));
    }

    @Test
    void aRootWithTheClusterSecretIsServed() throws Exception {
        try (LeafServer leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withClusterSecret(SECRET));
             RootServer root = RootServer.start(ClusterConfig.of(store.readManifest(), List.of(leaf.address()), 1)
                     .withClusterSecret(SECRET).withIoThreads(1), "127.0.0.1", 0, Duration.ofSeconds(30))) {
            assertThat(root.cluster().leaf(0).state()).isEqualTo(LeafStatus.State.UP);
            assertThat(root.client().search(SearchRequest.of("alpha")).join().tainted()).isFalse();
        }
    }

    @Test
    void aRootWithAnotherSecretIsRefusedAndSaysWhyInItsLeafStatus() throws Exception {
        try (LeafServer leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withClusterSecret(SECRET));
             RootServer root = RootServer.start(ClusterConfig.of(store.readManifest(), List.of(leaf.address()), 1)
                     .withClusterSecret("0123456789abcdef-another-one").withIoThreads(1), "127.0.0.1", 0,
                     REFUSED_READY)) {
            LeafStatus status = root.cluster().leaf(0);
            Await.until("the leaf's refusal", PATIENCE, () -> status.refusal() != null);
            assertThat(status.refusal()).contains("refused this root", "wrong cluster secret");
            assertThat(status.readyConnections()).isZero();
            assertThat(leaf.openPartitions()).as("nothing assigned").isEmpty();
        }
    }

    @Test
    void aRootWithoutASecretIsRefused() throws Exception {
        try (LeafServer leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withClusterSecret(SECRET));
             RootServer root = RootServer.start(ClusterConfig.of(store.readManifest(), List.of(leaf.address()), 1)
                     .withIoThreads(1), "127.0.0.1", 0, REFUSED_READY)) {
            Await.until("the leaf's refusal", PATIENCE, () -> root.cluster().leaf(0).refusal() != null);
            assertThat(root.cluster().leaf(0).refusal()).contains("sent no cluster secret");
            assertThat(leaf.openPartitions()).isEmpty();
        }
    }
}
