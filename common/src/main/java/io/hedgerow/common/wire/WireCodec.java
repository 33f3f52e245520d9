package io.hedgerow.common.wire;

import io.hedgerow.common.wire.proto.Frame;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.codec.protobuf.ProtobufDecoder;
import io.netty.handler.codec.protobuf.ProtobufEncoder;

/**
 * Framing of the root-leaf protocol: each {@link Frame} is preceded by its length as a 4-byte
 * big-endian integer. A frame longer than the limit, or one that does not parse, makes the decoder
 * throw; handlers close that connection (and only that one) when it happens.
 */
public final class WireCodec {
    /** Default limit of one frame; a leaf answer with 1,000 hits and snippets stays well under it. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

    private WireCodec() {
    }

    /** Adds the frame codec to the front of a pipeline; the handler after it sees {@link Frame}s. */
    public static void install(ChannelPipeline pipeline, int maxFrameBytes) {
        if (maxFrameBytes < 64) {
            throw new IllegalArgumentException("maxFrameBytes: " + maxFrameBytes + " (expected: >= 64)");
        }
        // Netty counts the 4-byte length prefix in its limit; ours is the frame itself.
        pipeline.addLast("frameDecoder", new LengthFieldBasedFrameDecoder(maxFrameBytes + 4, 0, 4, 0, 4));
        pipeline.addLast("protobufDecoder", new ProtobufDecoder(Frame.getDefaultInstance()));
        pipeline.addLast("framePrepender", new LengthFieldPrepender(4));
        pipeline.addLast("protobufEncoder", new ProtobufEncoder());
    }
}
