package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real leaf taking writes for a test ({@code @RegisterExtension}): started on a partition store
 * with every partition of its index assigned to one root connection, restartable on its port, and
 * closed with the sockets opened to it after each test. Shared by the write tests that talk to a leaf
 * over its socket.
 */
final class WritingLeaf implements AfterEachCallback {
    private final String index;
    private final int partitions;
    private final List<Socket> sockets = new ArrayList<>();
    private LeafServer leaf;
    private long nextRequestId = 100;

    WritingLeaf(String index, int partitions) {
        this.index = index;
        this.partitions = partitions;
    }

    /** Starts the leaf on {@code store} at {@code port} (0: any) and answers the root's connection to it. */
    FrameSocket start(PartitionStore store, int port) throws IOException {
        leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(1).withPort(port));
        return TestLeaves.root(leaf, sockets, FrameSocket.ROOT_ID, index, partitions);
    }

    /** Closes the leaf and every socket to it, starts it again on its port, and answers the new root connection. */
    FrameSocket restart(PartitionStore store) throws IOException {
        int port = leaf.port();
        close();
        return start(store, port);
    }

    /** The running leaf (null before {@link #start}). */
    LeafServer server() {
        return leaf;
    }

    /** A request id not used before in this test. */
    long nextRequestId() {
        return nextRequestId++;
    }

    /** Sends {@code request} under a new id on {@code root}, a connection to this leaf, and returns its answer. */
    WriteResponse call(FrameSocket root, WriteRequest.Builder request) throws IOException {
        long id = nextRequestId();
        root.send(Frame.newBuilder().setWrite(request.setRequestId(id)).build());
        return answer(root, id);
    }

    /** The next frame on {@code root}, checked to be the answer to write request {@code id}. */
    static WriteResponse answer(FrameSocket root, long id) throws IOException {
        Frame answer = root.receive();
        assertThat(answer.getBodyCase()).isEqualTo(Frame.BodyCase.WRITE_RESULT);
        assertThat(answer.getWriteResult().getRequestId()).isEqualTo(id);
        return answer.getWriteResult();
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        close();
    }

    private void close() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        sockets.clear();
        if (leaf != null) {
            leaf.close();
            leaf = null;
        }
    }
}
