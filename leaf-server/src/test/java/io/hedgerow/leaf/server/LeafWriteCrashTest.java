package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.AssignAck;
import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing a leaf acknowledged is lost when it is killed (SIGKILL, no shutdown hook, no Lucene
 * commit): a real leaf process takes writes, is killed, starts again on its port, and replays its
 * write-ahead log, so every acknowledged document is there and numbering goes on where it stopped.
 */
class LeafWriteCrashTest {
    private static final String INDEX = "crash";
    private static final Duration BOUND = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private Process leaf;
    private Path log;

    @AfterEach
    void kill() throws InterruptedException {
        if (leaf != null && leaf.isAlive()) {
            leaf.destroyForcibly().waitFor();
        }
    }

    @Test
    void everyAcknowledgedWriteSurvivesSigkillAndARestartOnThePort() throws Exception {
        PartitionStore store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, 1);
        int port = startLeaf(store, 0);
        long acknowledgedSeq;
        try (Socket socket = connect(port)) {
            FrameSocket root = assign(FrameSocket.over(socket));
            for (int batch = 0; batch < 10; batch++) {
                WriteRequest.Builder request = WriteRequest.newBuilder().setRequestId(100 + batch).setPrimary(true);
                for (int i = 0; i < 20; i++) {
                    request.addOps(LeafWritesTest.upsert("crash-" + (batch * 20 + i), "an acknowledged write"));
                }
                root.send(Frame.newBuilder().setWrite(request).build());
                WriteResponse answer = root.receive().getWriteResult();
                assertThat(answer.getStatus()).isEqualTo(Status.OK);
            }
            acknowledgedSeq = 200;
        }
        leaf.destroyForcibly().waitFor();

        startLeaf(store, port);
        try (Socket socket = connect(port)) {
            FrameSocket root = assign(FrameSocket.over(socket));
            for (int i = 0; i < 200; i++) {
                root.send(Frame.newBuilder().setWrite(WriteRequest.newBuilder().setRequestId(1000 + i)
                        .addOps(WriteOp.newBuilder().setKind(WriteKind.GET).setId("crash-" + i))).build());
                WriteResponse answer = root.receive().getWriteResult();
                assertThat(answer.getResults(0).getOutcome()).as("crash-%s", i).isEqualTo(WriteOutcome.FOUND);
            }
            root.send(Frame.newBuilder().setWrite(WriteRequest.newBuilder().setRequestId(5000).setPrimary(true)
                    .addOps(LeafWritesTest.upsert("after", "after the crash"))).build());
            assertThat(root.receive().getWriteResult().getResults(0).getSeq()).isEqualTo(acknowledgedSeq + 1);
        }
    }

    private int startLeaf(PartitionStore store, int port) throws Exception {
        Path portFile = dir.resolve("leaf-" + System.nanoTime() + ".port");
        log = dir.resolve("leaf.log");
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        if (Runtime.version().feature() >= 23) {
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        command.addAll(List.of("-Xmx128m", "-cp", System.getProperty("java.class.path"), LeafProcessMain.class.getName(),
                "--index", store.dir().toString(), "--port", Integer.toString(port), "--port-file", portFile.toString(),
                "--workers", "1", "--warmup", "0s", "--exit-with-parent"));
        leaf = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!Files.exists(portFile) || Files.readString(portFile).isBlank()) {
            assertThat(leaf.isAlive()).as("leaf still starting; its log: %s", Files.readString(log)).isTrue();
            assertThat(System.nanoTime() - deadline).as("waiting for the leaf to listen").isNegative();
            Thread.sleep(20);
        }
        return Integer.parseInt(Files.readString(portFile).trim());
    }

    private static Socket connect(int port) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout((int) BOUND.toMillis());
        socket.setTcpNoDelay(true);
        return socket;
    }

    private static FrameSocket assign(FrameSocket root) throws IOException {
        assertThat(root.hello(FrameSocket.ROOT_ID).getError()).isEmpty();
        root.send(Frame.newBuilder().setAssign(AssignPartitions.newBuilder().setRequestId(1).setIndexName(INDEX)
                .addPartitions(0)).build());
        AssignAck ack = root.receive().getAssignAck();
        assertThat(ack.getError()).isEmpty();
        return root;
    }
}
