package io.hedgerow.root.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.common.net.TlsContexts;
import io.hedgerow.common.net.TlsFiles;
import io.hedgerow.common.wire.Protocol;
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
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.IndexProbe;
import io.hedgerow.root.http.HttpSettings;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on the cluster's links and on the HTTP API, over real sockets with a certificate made by
 * {@link SelfSignedTls}: a search works over TLS end to end (HTTPS in, TLS to the leaf), and a
 * plaintext client, root or HTTP client, is refused.
 */
class LinkTlsTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    static Path dir;

    private static PartitionStore index;
    private static TlsFiles tls;
    private final List<AutoCloseable> started = new ArrayList<>();

    @BeforeAll
    static void buildIndexAndCertificate() throws IOException {
        index = new PartitionStore(dir.resolve("index"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(2), IndexProgress.none())
                .build(index, "tls", IndexConfig.defaults(), TestData.documents(3, 60));
        tls = SelfSignedTls.generate(dir.resolve("run"));
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    @Test
    void makesAPemCertificateAndAKeyOnlyItsOwnerReads() throws IOException {
        assertThat(Files.readString(tls.certificateChain())).startsWith("-----BEGIN CERTIFICATE-----\n");
        assertThat(Files.readString(tls.privateKey())).startsWith("-----BEGIN PRIVATE KEY-----\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tls.privateKey()))).isEqualTo("rw-------");
        assertThat(tls.trustedCertificates()).isEqualTo(tls.certificateChain());
    }

    @Test
    void aSearchWorksOverHttpsAndTlsToTheLeaf() throws Exception {
        LeafServer leaf = leaf();
        RootServer root = root(config(leaf).withTlsTrust(tls.certificateChain()),
                HttpSettings.defaults("127.0.0.1", 0).withTls(new TlsFiles(tls.certificateChain(), tls.privateKey(), null)));

        SearchResult result = root.client().search(SearchRequest.builder("alpha OR bravo").cache(false).build()).join();
        assertThat(result.tainted()).as("every partition answered over TLS: %s", result.errors()).isFalse();
        assertThat(result.hits()).isNotEmpty();

        URI https = URI.create("https://127.0.0.1:" + root.httpPort() + "/search?q=alpha&cache=false");
        try (HttpClient client = HttpClient.newBuilder().sslContext(TlsContexts.jdkClient(tls.certificateChain()))
                .build()) {
            var answer = client.send(HttpRequest.newBuilder(https).timeout(PATIENCE).build(), BodyHandlers.ofString());
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            assertThat(answer.body()).contains("\"tainted\":false");
        }
        try (HttpClient plain = HttpClient.newHttpClient()) {
            URI http = URI.create("http://127.0.0.1:" + root.httpPort() + "/health");
            assertThatThrownBy(() -> plain.send(HttpRequest.newBuilder(http).timeout(PATIENCE).build(),
                    BodyHandlers.ofString())).as("plain HTTP to the HTTPS port").isInstanceOf(IOException.class);
        }
        assertThat(IndexProbe.learn(List.of(leaf.address()), ClusterState.randomRootId(), null,
                tls.certificateChain(), PATIENCE).name()).as("the root's probe of the index, over TLS").isEqualTo("tls");
    }

    @Test
    void aPlaintextClientGetsNoAnswerFromALeafThatServesTls() throws Exception {
        LeafServer leaf = leaf();
        String[] hostPort = leaf.address().split(":");
        try (Socket socket = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
            socket.setSoTimeout((int) PATIENCE.toMillis());
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            byte[] hello = Protocol.rootHello(7, null).toByteArray();
            out.writeInt(hello.length);
            out.write(hello);
            out.flush();
            InputStream in = socket.getInputStream();
            int first;
            try {
                first = in.read();
            } catch (IOException reset) {
                first = -1; // reset rather than closed: no answer either way
            }
            assertThat(first).as("the leaf closes the connection without a byte of a HelloAck").isEqualTo(-1);
        }

        RootServer plaintextRoot = root(config(leaf), null);
        Await.until("the plaintext root refused", PATIENCE, () -> plaintextRoot.cluster().leaf(0).refusal() != null);
        assertThat(plaintextRoot.cluster().leaf(0).readyConnections()).isZero();
        assertThat(plaintextRoot.cluster().leaf(0).refusal()).contains("a leaf that serves TLS when this root dials"
                + " plaintext");
        assertThat(leaf.openPartitions()).as("nothing assigned over plaintext").isEmpty();
    }

    private LeafServer leaf() throws IOException {
        LeafServer leaf = LeafServer.start(LeafConfig.defaults(index.dir()).withWorkers(1).withTls(tls));
        started.add(leaf);
        return leaf;
    }

    private static ClusterConfig config(LeafServer leaf) throws IOException {
        return ClusterConfig.of(index.readManifest(), List.of(leaf.address()), 1).withIoThreads(1)
                .withDefaultTimeout(PATIENCE);
    }

    private RootServer root(ClusterConfig config, HttpSettings http) throws IOException, InterruptedException {
        RootServer root = RootServer.start(config, http, http == null ? Duration.ofMillis(200) : PATIENCE, null,
                ClusterState.randomRootId());
        started.add(root);
        return root;
    }
}
