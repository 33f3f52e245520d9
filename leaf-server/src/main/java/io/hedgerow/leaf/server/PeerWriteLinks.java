package io.hedgerow.leaf.server;

import io.hedgerow.common.net.LinkTls;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.WriteConnection;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.write.PeerWrites;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A primary leaf's links to its replicas' leaves for the copies of its numbered batches
 * ({@link PeerWrites}, {@link io.hedgerow.leaf.write.ReplicationGroup}): one {@link WriteConnection}
 * per peer address, opened on first use (and again after it closed) with a Hello in the
 * {@code REPLICA_COPIES} role carrying the cluster's secret, on the leaf's own event loops.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; {@link #send} never blocks. Order among
 * requests sent while a connection is being made is not kept: the copies of one partition to one
 * replica go one at a time ({@code ReplicationGroup}), which is the order that matters. Every request
 * is answered exactly once ({@link WriteConnection}).
 */
final class PeerWriteLinks implements PeerWrites {
    private final EventLoopGroup group;
    private final Class<? extends Channel> channelClass;
    private final int maxFrameBytes;
    private final Frame hello;
    private final LinkTls tls;
    private final Map<String, WriteConnection> links = new ConcurrentHashMap<>();

    PeerWriteLinks(EventLoopGroup group, Class<? extends Channel> channelClass, int maxFrameBytes, String clusterSecret,
            LinkTls tls) {
        this.group = group;
        this.channelClass = channelClass;
        this.maxFrameBytes = maxFrameBytes;
        this.hello = Protocol.replicaCopiesHello(clusterSecret);
        this.tls = tls;
    }

    @Override
    public CompletableFuture<WriteResponse> send(String address, WriteRequest request, long timeoutNanos) {
        HostPort peer = HostPort.parse(address);
        if (peer == null) {
            return CompletableFuture.failedFuture(new IOException("replica leaf address '" + address
                    + "' (expected: host:port)"));
        }
        WriteConnection link = links.computeIfAbsent(address, a -> new WriteConnection("replica leaf " + a, peer.host(),
                peer.port(), group, channelClass, maxFrameBytes, tls, hello, null));
        return link.send(request.toBuilder(), timeoutNanos);
    }
}
