package io.hedgerow.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The server {@code ./hedgerow zk} runs. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EmbeddedZooKeeperTest {
    @TempDir
    Path dataDir;

    @Test
    void startsOnAFreePortAndAClientConnectsWithTheDefaultSessionTimeout() throws Exception {
        try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, dataDir));
                CoordinationClient client = CoordinationClient.connect(
                        CoordinationSettings.of(server.connectString(), "embedded"))) {
            assertThat(server.port()).isPositive();
            assertThat(server.isRunning()).isTrue();
            assertThat(client.negotiatedSessionTimeoutMs())
                    .isEqualTo(CoordinationSettings.DEFAULT_SESSION_TIMEOUT.toMillis());
        }
    }

    @Test
    void keepsTheClustersStateAcrossARestart() throws Exception {
        PartitionState initial = PartitionState.initial(0, NodeId.of("leaf-a"), List.of(NodeId.of("leaf-b")));
        try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, dataDir));
                CoordinationClient client = CoordinationClient.connect(
                        CoordinationSettings.of(server.connectString(), "embedded"))) {
            assertThat(new CuratorClusterStore(client).create(initial)).isInstanceOf(UpdateOutcome.Written.class);
        }

        try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, dataDir));
                CoordinationClient client = CoordinationClient.connect(
                        CoordinationSettings.of(server.connectString(), "embedded"))) {
            assertThat(new CuratorClusterStore(client).read(0)).contains(initial.withVersion(0));
        }
    }

    @Test
    void aClientWithoutAServerFailsNamingTheAddressItTried() throws Exception {
        int port;
        try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, dataDir))) {
            port = server.port(); // free again once closed
        }
        CoordinationSettings settings = CoordinationSettings.of("127.0.0.1:" + port, "embedded")
                .withConnectionTimeout(java.time.Duration.ofMillis(500));

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> CoordinationClient.connect(settings))
                .isInstanceOf(CoordinationException.class)
                .hasMessageContaining("no connection to ZooKeeper at 127.0.0.1:" + port + " within 500 ms");
    }
}
