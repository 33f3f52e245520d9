package io.hedgerow.root.write;

import io.hedgerow.common.net.LinkTls;
import io.hedgerow.common.net.Transport;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.WireCodec;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.HelloAck;
import io.hedgerow.common.wire.proto.RebuildRefusal;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.transport.FakeLeaf;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A partition's two replicas on leaves written by hand ({@link FakeLeaf}), for the root's catch-up
 * tests that need a leaf's exact answer: leaf 0 holds seq 1..3 with its log trimmed at 3, and makes a
 * snapshot when asked; leaf 1 holds seq 1..2, so it can be caught up only from a snapshot, and refuses
 * every RESTORE ({@code REBUILD_REFUSED}) with the reason and the words the test gives. Counts leaf 1's
 * probes and the RESTOREs it was sent. Anything else is answered ERROR.
 */
final class ScriptedReplicas implements AutoCloseable {
    /** The snapshot leaf 0 makes. */
    static final String SNAPSHOT = "partition-0000/node-0-seq-3";

    /** Probes of leaf 1's last seq (each catch-up round sends one). */
    final AtomicInteger probesOfOne = new AtomicInteger();
    /** RESTOREs sent to leaf 1. */
    final AtomicInteger restores = new AtomicInteger();
    private final RebuildRefusal reason;
    private final String refusal;
    private final EventLoopGroup group = Transport.best().newGroup(1, "test-scripted-replicas");
    private final FakeLeaf zero;
    private final FakeLeaf one;
    private final WriteLink[] links;

    /** Leaf 1 refuses every RESTORE for {@code reason}, saying {@code refusal}. */
    ScriptedReplicas(RebuildRefusal reason, String refusal) throws IOException {
        this.reason = reason;
        this.refusal = refusal;
        this.zero = new FakeLeaf(frame -> answer(frame, false));
        this.one = new FakeLeaf(frame -> answer(frame, true));
        this.links = new WriteLink[] {link(zero), link(one)};
    }

    /** The links to leaf 0 and leaf 1, in that order. */
    WriteLink[] links() {
        return links.clone();
    }

    private WriteLink link(FakeLeaf leaf) {
        return new WriteLink(LeafAddress.parse(leaf.address()), group, Transport.best().channelClass(),
                Protocol.rootHello(0x5C41_9701L), WireCodec.DEFAULT_MAX_FRAME_BYTES, LinkTls.NONE);
    }

    private Frame answer(Frame frame, boolean replica) {
        if (frame.getBodyCase() == Frame.BodyCase.HELLO) {
            return Frame.newBuilder().setHelloAck(HelloAck.newBuilder().setProtocolVersion(Protocol.VERSION)).build();
        }
        if (frame.getBodyCase() != Frame.BodyCase.WRITE) {
            return null; // not a root's write link: closed
        }
        WriteRequest request = frame.getWrite();
        WriteResponse.Builder answer = WriteResponse.newBuilder().setRequestId(request.getRequestId())
                .setPartition(request.getPartition());
        WriteKind kind = request.getOpsCount() == 1 ? request.getOps(0).getKind() : null;
        if (kind == WriteKind.READ_LOG && request.getFromSeq() == Long.MAX_VALUE) {
            if (replica) {
                probesOfOne.incrementAndGet();
            }
            answer.setStatus(Status.OK).setLastSeq(replica ? 2 : 3).setTrimmedSeq(replica ? 0 : 3);
        } else if (kind == WriteKind.SNAPSHOT && !replica) {
            answer.setStatus(Status.OK).setSnapshot(SNAPSHOT).setLastSeq(3);
        } else if (kind == WriteKind.RESTORE && replica) {
            restores.incrementAndGet();
            answer.setStatus(Status.REBUILD_REFUSED).setRebuildRefusal(reason).setError(refusal);
        } else {
            answer.setStatus(Status.ERROR).setError("not in the test's script: " + request);
        }
        return Frame.newBuilder().setWriteResult(answer).build();
    }

    @Override
    public void close() throws IOException {
        for (WriteLink link : links) {
            link.close();
        }
        zero.close();
        one.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
