package io.hedgerow.common.net;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The Netty transport this process uses: native epoll where it loads, NIO otherwise. Chosen once,
 * so event loops and channel classes always match.
 */
public record Transport(
        String name,
        IoHandlerFactory ioHandlerFactory,
        Class<? extends ServerChannel> serverChannelClass,
        Class<? extends Channel> channelClass) {

    /** The best transport available on this machine. */
    public static Transport best() {
        if (Epoll.isAvailable()) {
            return new Transport("epoll", EpollIoHandler.newFactory(),
                    EpollServerSocketChannel.class, EpollSocketChannel.class);
        }
        return nio();
    }

    public static Transport nio() {
        return new Transport("nio", NioIoHandler.newFactory(),
                NioServerSocketChannel.class, NioSocketChannel.class);
    }

    /** A group of {@code threads} event loops whose threads are named {@code <prefix>-N}. */
    public EventLoopGroup newGroup(int threads, String threadNamePrefix) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads: " + threads + " (expected: >= 1)");
        }
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(threadNamePrefix, true),
                ioHandlerFactory);
    }
}
