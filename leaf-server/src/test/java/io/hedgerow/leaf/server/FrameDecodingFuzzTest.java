package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.hedgerow.common.wire.WireCodec;
import io.hedgerow.common.wire.WireLimits;
import io.hedgerow.common.wire.proto.Frame;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the bytes a leaf reads from its port: the length-prefixed protobuf framing and the
 * checks on a decoded search. Whatever arrives, the decoder either yields frames (each search
 * within {@link WireLimits} or refused by them, without throwing) or fails with a
 * {@link DecoderException}, on which the leaf closes that one connection; nothing else may escape,
 * and a frame is never bigger than the limit the leaf set.
 *
 * <p>The {@code @FuzzTest} runs its kept corpus in every build and fuzzes with {@code JAZZER_FUZZ=1};
 * the {@code @Test} runs a seeded random sample in every build (the seed is printed on failure).
 */
class FrameDecodingFuzzTest {
    /** Random inputs per seeded test: 20,000 in the suite; the long run sets -Dhedgerow.fuzz.inputs=1000000. */
    private static final int INPUTS = Integer.getInteger("hedgerow.fuzz.inputs", 20_000);
    private static final int MAX_FRAME_BYTES = 4096;

    @FuzzTest(maxDuration = "10m", maxExecutions = 1_000_000)
    void anyBytesDecodeToFramesOrFailTheConnection(byte[] bytes) {
        decode(bytes);
    }

    @Test
    void randomBytesAndMutatedFramesDecodeToFramesOrFailTheConnection() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        byte[] valid = framed(Frame.newBuilder().setSearch(io.hedgerow.common.wire.proto.SearchRequest.newBuilder()
                .setRequestId(7).setPartition(1).setQuery("body:hedge").setK(10).setTotalHitsThreshold(100)).build());
        for (int i = 0; i < INPUTS; i++) {
            byte[] input;
            if (random.nextBoolean()) {
                input = valid.clone();
                int flips = 1 + random.nextInt(4);
                for (int f = 0; f < flips; f++) {
                    input[random.nextInt(input.length)] = (byte) random.nextInt(256);
                }
            } else {
                input = new byte[random.nextInt(64)];
                random.nextBytes(input);
            }
            try {
                decode(input);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("seed " + seed + ", input #" + i, e);
            }
        }
    }

    private static byte[] framed(Frame frame) {
        byte[] body = frame.toByteArray();
        byte[] out = new byte[body.length + 4];
        out[0] = (byte) (body.length >>> 24);
        out[1] = (byte) (body.length >>> 16);
        out[2] = (byte) (body.length >>> 8);
        out[3] = (byte) body.length;
        System.arraycopy(body, 0, out, 4, body.length);
        return out;
    }

    private static void decode(byte[] bytes) {
        EmbeddedChannel channel = new EmbeddedChannel();
        WireCodec.install(channel.pipeline(), MAX_FRAME_BYTES);
        try {
            channel.writeInbound(Unpooled.wrappedBuffer(bytes));
        } catch (DecoderException e) {
            return; // the leaf closes this connection (LeafConnectionHandler.exceptionCaught)
        } finally {
            Object decoded;
            while ((decoded = channel.readInbound()) != null) {
                assertThat(decoded).isInstanceOf(Frame.class);
                Frame frame = (Frame) decoded;
                assertThat(frame.getSerializedSize()).isLessThanOrEqualTo(MAX_FRAME_BYTES);
                if (frame.hasSearch()) {
                    WireLimits.searchProblem(frame.getSearch()); // must not throw, whatever the fields
                }
            }
            channel.finishAndReleaseAll();
        }
    }
}
