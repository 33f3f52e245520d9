package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.AssignAck;
import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/** Small indexes and root connections for the leaf's socket tests. */
final class TestLeaves {
    /** Only a leaf that never answers reaches it. */
    static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    private TestLeaves() {
    }

    /** 40 short documents of hedgerow words, "meadow" in a fifth of the bodies, over {@code partitions}. */
    static PartitionStore hedgerowIndex(Path dir, String name, int partitions) throws IOException {
        List<SourceDocument> docs = new ArrayList<>();
        String[] words = {"meadow", "hawthorn", "blackbird", "brook", "hazel"};
        for (int i = 0; i < 40; i++) {
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put("title", words[i % words.length] + " " + words[(i / 5) % words.length]);
            fields.put("body", "the " + words[i % words.length] + " by the " + words[(i + 2) % words.length] + ".");
            docs.add(new SourceDocument("doc-" + i, fields, i + 1));
        }
        return build(dir, name, partitions, docs);
    }

    static PartitionStore build(Path dir, String name, int partitions, List<SourceDocument> docs) throws IOException {
        PartitionStore store = new PartitionStore(dir);
        new IndexBuilder(IndexOptions.defaults().withPartitions(partitions), IndexProgress.none())
                .build(store, name, IndexConfig.defaults(), docs);
        return store;
    }

    /** Copies the directory tree {@code from} to {@code to} (a second leaf's own copy of a build: nothing shared). */
    static Path copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walked = Files.walk(from)) {
            for (Path path : (Iterable<Path>) walked::iterator) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target);
                }
            }
        }
        return to;
    }

    /** A plain socket to the leaf, nothing sent yet. */
    static FrameSocket open(LeafServer leaf, List<Socket> opened) throws IOException {
        Socket socket = new Socket("127.0.0.1", leaf.port());
        opened.add(socket);
        socket.setSoTimeout((int) READ_TIMEOUT.toMillis());
        socket.setTcpNoDelay(true);
        return FrameSocket.over(socket);
    }

    /** Root {@code rootId}'s connection, every one of {@code partitions} partitions of {@code index} assigned. */
    static FrameSocket root(LeafServer leaf, List<Socket> opened, long rootId, String index, int partitions)
            throws IOException {
        return root(leaf, opened, rootId, index, partitions, List.of());
    }

    /** As {@link #root(LeafServer, List, long, String, int)}, the assignment naming these leaves as the cluster's. */
    static FrameSocket root(LeafServer leaf, List<Socket> opened, long rootId, String index, int partitions,
            List<String> peers) throws IOException {
        FrameSocket root = open(leaf, opened);
        assertThat(root.hello(rootId).getError()).isEmpty();
        root.send(Frame.newBuilder().setAssign(AssignPartitions.newBuilder().setRequestId(1)
                .setIndexName(index).addAllPartitions(IntStream.range(0, partitions).boxed().toList())
                .addAllPeers(peers)).build());
        AssignAck ack = root.receive().getAssignAck();
        assertThat(ack.getError()).isEmpty();
        return root;
    }

    /** Another leaf's connection for twin cancels. */
    static FrameSocket peer(LeafServer leaf, List<Socket> opened) throws IOException {
        FrameSocket peer = open(leaf, opened);
        assertThat(peer.helloForTwinCancels().getError()).isEmpty();
        return peer;
    }
}
