package io.hedgerow.root.write;

import io.hedgerow.common.net.LinkTls;
import io.hedgerow.common.wire.WriteConnection;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.IndexIdentity;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.root.cluster.LeafAddress;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * The root's connection to one leaf for writes, apart from the search connections (writes fsync
 * at the leaf and take longer; they should not queue behind searches nor hold them up): a
 * {@link WriteConnection} whose Hello answer is checked as the search connections check it, its
 * protocol version and the index it serves ({@code indexCheck}), so a leaf serving another index or
 * build is never written to. A request sent while the leaf is down fails, which the caller takes as
 * that replica failing.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; as {@link WriteConnection}: every request is
 * answered exactly once, by the leaf, the connection closing or its timeout.
 */
final class WriteLink {
    private final LeafAddress address;
    private final WriteConnection connection;

    /** A link that does not check the leaf's index (a test's, or a tool's that knows its leaf). */
    WriteLink(LeafAddress address, EventLoopGroup group, Class<? extends Channel> channelClass, Frame hello,
            int maxFrameBytes, LinkTls tls) {
        this(address, group, channelClass, hello, maxFrameBytes, tls, null);
    }

    /** @param indexCheck why this root must not use the leaf serving an index ({@code leaf, identity}); null when it may */
    WriteLink(LeafAddress address, EventLoopGroup group, Class<? extends Channel> channelClass, Frame hello,
            int maxFrameBytes, LinkTls tls, BiFunction<String, IndexIdentity, String> indexCheck) {
        this.address = address;
        this.connection = new WriteConnection("leaf " + address, address.host(), address.port(), group, channelClass,
                maxFrameBytes, tls, hello,
                indexCheck == null ? null : ack -> indexCheck.apply(address.toString(), ack.getIndex()));
    }

    LeafAddress address() {
        return address;
    }

    /** Sends a request (its id is set here) and completes with the leaf's answer. */
    CompletableFuture<WriteResponse> send(WriteRequest.Builder request, Duration timeout) {
        return connection.send(request, timeout.toNanos());
    }

    void close() {
        connection.close();
    }
}
