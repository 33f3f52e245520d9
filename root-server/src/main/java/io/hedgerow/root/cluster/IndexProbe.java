package io.hedgerow.root.cluster;

import io.hedgerow.common.net.TlsContexts;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.HelloAck;
import io.hedgerow.common.wire.proto.IndexIdentity;
import io.hedgerow.leaf.index.IndexIdentities;
import io.hedgerow.leaf.index.IndexManifest;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Learns, before a root starts, which index its leaves serve: it says Hello to each leaf, as the
 * root will, and reads the index identity from the answers. A root that was not given the index's
 * files ({@code ./hedgerow root} without {@code --index}) starts with what this learns, so its
 * partition count is the index's and not a default.
 *
 * <p>Blocking, on the caller's thread, with plain sockets: it runs once, before any event loop
 * exists. The protocol is the root's ({@link Protocol#rootHello}); the leaf answers and the probe
 * closes the connection, which costs the leaf nothing.
 */
public final class IndexProbe {
    private static final int MAX_FRAME_BYTES = 16 * 1024 * 1024;
    private static final Duration RETRY_EVERY = Duration.ofMillis(200);

    private IndexProbe() {
    }

    /**
     * Asks every leaf which index it serves, retrying the ones not reachable yet until at least one
     * has answered or {@code timeout} has passed; once one has, each other leaf is asked once more at
     * most (a leaf that is down then is checked by the root's own handshake when it comes up).
     *
     * @param leaves leaf addresses, {@code host:port}
     * @param rootId the id the root will use (the leaves see a connection from it that says Hello and goes)
     * @return the manifest of the one index the leaves that answered serve
     * @throws IOException naming each leaf and what it said, when no leaf answered in time, every leaf
     *         refused (another protocol version), or the leaves that answered serve different indexes
     */
    public static IndexManifest learn(List<String> leaves, long rootId, Duration timeout)
            throws IOException, InterruptedException {
        return learn(leaves, rootId, null, timeout);
    }

    /** As {@link #learn(List, long, Duration)}, saying the cluster's secret (null: none) in the Hello. */
    public static IndexManifest learn(List<String> leaves, long rootId, String clusterSecret, Duration timeout)
            throws IOException, InterruptedException {
        return learn(leaves, rootId, clusterSecret, null, timeout);
    }

    /**
     * As {@link #learn(List, long, String, Duration)}, over TLS trusting the PEM certificates in
     * {@code tlsTrust} (null: plaintext), as the root's connections will.
     */
    public static IndexManifest learn(List<String> leaves, long rootId, String clusterSecret, Path tlsTrust,
            Duration timeout) throws IOException, InterruptedException {
        SSLSocketFactory tls = tlsTrust == null ? null : TlsContexts.jdkClient(tlsTrust).getSocketFactory();
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, IndexIdentity> identities = new LinkedHashMap<>();
        Map<String, String> problems = new LinkedHashMap<>();
        while (true) {
            for (String leaf : leaves) {
                if (identities.containsKey(leaf)) {
                    continue;
                }
                try {
                    HelloAck ack = hello(LeafAddress.parse(leaf), rootId, clusterSecret, tls, remaining(deadline));
                    String refused = !ack.getError().isEmpty() ? "refused: " + ack.getError()
                            : Protocol.mismatch(ack.getProtocolVersion(), "it", "this root");
                    if (refused != null) {
                        problems.put(leaf, refused);
                    } else {
                        identities.put(leaf, ack.getIndex());
                        problems.remove(leaf);
                    }
                } catch (IOException e) {
                    problems.put(leaf, e.getMessage() == null ? e.toString() : e.getMessage());
                }
            }
            if (!identities.isEmpty() || System.nanoTime() - deadline >= 0) {
                break;
            }
            Thread.sleep(RETRY_EVERY.toMillis());
        }
        if (identities.isEmpty()) {
            throw new IOException("no leaf said which index it serves within " + timeout.toMillis() + " ms ("
                    + describe(problems) + "); start the leaves first, or give the root --index DIR");
        }
        Map<String, List<String>> byIndex = new LinkedHashMap<>();
        identities.forEach((leaf, identity) -> byIndex.computeIfAbsent(identity.getManifestSha256(), h -> new ArrayList<>())
                .add(leaf));
        if (byIndex.size() > 1) {
            String sides = byIndex.values().stream()
                    .map(group -> String.join(", ", group) + (group.size() == 1 ? " serves " : " serve ")
                            + IndexIdentities.describe(identities.get(group.get(0))))
                    .collect(Collectors.joining("; "));
            throw new IOException("the leaves serve different indexes: " + sides
                    + " (expected: one; give the root --index DIR to name the one to serve)");
        }
        IndexIdentity identity = identities.values().iterator().next();
        return IndexIdentities.manifestOf(identity);
    }

    private static Duration remaining(long deadlineNanos) {
        return Duration.ofNanos(Math.max(Duration.ofMillis(100).toNanos(),
                Math.min(Duration.ofSeconds(2).toNanos(), deadlineNanos - System.nanoTime())));
    }

    private static HelloAck hello(LeafAddress address, long rootId, String clusterSecret, SSLSocketFactory tls,
            Duration timeout) throws IOException {
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(address.host(), address.port()), (int) timeout.toMillis());
            Socket socket = plain;
            if (tls != null) {
                SSLSocket secure = (SSLSocket) tls.createSocket(plain, address.host(), address.port(), true);
                SSLParameters parameters = secure.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                secure.setSSLParameters(parameters);
                socket = secure;
            }
            socket.setSoTimeout((int) timeout.toMillis());
            socket.setTcpNoDelay(true);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            byte[] hello = Protocol.rootHello(rootId, clusterSecret).toByteArray();
            out.writeInt(hello.length);
            out.write(hello);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int length;
            try {
                length = in.readInt();
            } catch (java.io.EOFException e) {
                throw new IOException(address + " closed the connection without answering the Hello (a leaf from"
                        + " before protocol versions, 0, does that; this root speaks " + Protocol.VERSION + ")", e);
            }
            if (length < 0 || length > MAX_FRAME_BYTES) {
                throw new IOException(address + " sent a frame of " + length + " bytes (expected: 0.." + MAX_FRAME_BYTES + ")");
            }
            byte[] bytes = new byte[length];
            in.readFully(bytes);
            Frame frame = Frame.parseFrom(bytes);
            if (frame.getBodyCase() != Frame.BodyCase.HELLO_ACK) {
                throw new IOException(address + " answered the Hello with " + frame.getBodyCase() + " (expected: HELLO_ACK)");
            }
            return frame.getHelloAck();
        } catch (java.net.ConnectException e) {
            throw new IOException("cannot connect to " + address + ": " + e.getMessage(), e);
        }
    }

    private static String describe(Map<String, String> problems) {
        return problems.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).collect(Collectors.joining("; "));
    }
}
