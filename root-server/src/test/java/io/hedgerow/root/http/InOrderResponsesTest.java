package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pipelined requests on one connection: answered in order, the connection closed past the cap, and
 * reading paused while requests are held or while the client does not take its answers (its
 * outbound buffer is over the high water mark), whichever ends last. On Netty's embedded channel:
 * a write that is not flushed stays in the outbound buffer, as on a socket whose client does not
 * read.
 */
class InOrderResponsesTest {
    /** Unwritable once more than 1,000 bytes wait; writable again under 500. */
    private static final WriteBufferWaterMark SMALL = new WriteBufferWaterMark(500, 1_000);
    /** Bigger than the high water mark: one answer makes the channel unwritable. */
    private static final int ANSWER_BYTES = 2_000;

    @Test
    void answersPipelinedRequestsInTheOrderTheyCameOneAtATime() {
        HeldAnswers api = new HeldAnswers();
        EmbeddedChannel channel = channel(4, api);
        channel.writeInbound(request("/a"), request("/b"), request("/c"));
        assertThat(api.handed).as("one request handed on until it is answered").containsExactly("/a");

        api.answer(0, 10);
        channel.runPendingTasks();
        api.answer(1, 10);
        channel.runPendingTasks();
        assertThat(api.handed).containsExactly("/a", "/b", "/c");
    }

    @Test
    void closesAConnectionThatGetsMoreThanTheCapAheadOfItsAnswers() {
        HeldAnswers api = new HeldAnswers();
        EmbeddedChannel channel = channel(2, api);
        channel.writeInbound(request("/a"), request("/b"), request("/c"));
        assertThat(channel.isOpen()).as("one answering and two held: at the cap").isTrue();
        assertThat(channel.config().isAutoRead()).as("reading paused while requests are held").isFalse();

        channel.writeInbound(request("/d"));
        assertThat(channel.isOpen()).as("a third held request is past the cap").isFalse();
        assertThat(api.handed).containsExactly("/a");
    }

    @Test
    void readingStaysPausedWhileTheClientDoesNotTakeItsAnswersAndResumesWhenItDoes() {
        HeldAnswers api = new HeldAnswers();
        EmbeddedChannel channel = channel(4, api);
        channel.writeInbound(request("/a"), request("/b"));

        api.answer(0, ANSWER_BYTES); // not flushed: it waits in the outbound buffer, over the high water mark
        channel.runPendingTasks();
        assertThat(channel.isWritable()).isFalse();
        api.answer(1, ANSWER_BYTES);
        channel.runPendingTasks();
        assertThat(api.handed).containsExactly("/a", "/b");
        assertThat(channel.config().isAutoRead())
                .as("nothing held, but the client has not taken its answers: reading stays paused").isFalse();

        channel.flush(); // the client reads: the outbound buffer empties
        assertThat(channel.isWritable()).isTrue();
        assertThat(channel.config().isAutoRead()).as("reading again once the client takes its answers").isTrue();
    }

    @Test
    void aClientTakingItsAnswersDoesNotResumeReadingWhileRequestsAreHeld() {
        HeldAnswers api = new HeldAnswers();
        EmbeddedChannel channel = channel(4, api);
        channel.writeInbound(request("/a"), request("/b"), request("/c"));
        api.answer(0, ANSWER_BYTES);
        channel.runPendingTasks();
        assertThat(api.handed).containsExactly("/a", "/b");

        channel.flush(); // the client takes the answer to /a while /c is still held
        assertThat(channel.isWritable()).isTrue();
        assertThat(channel.config().isAutoRead()).as("a held request keeps reading paused").isFalse();

        api.answer(1, 10);
        channel.runPendingTasks();
        assertThat(api.handed).containsExactly("/a", "/b", "/c");
        api.answer(2, 10);
        channel.runPendingTasks();
        assertThat(channel.config().isAutoRead()).as("nothing held, writable").isTrue();
    }

    private static EmbeddedChannel channel(int maxPipelined, HeldAnswers api) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setWriteBufferWaterMark(SMALL);
        channel.pipeline().addLast(new InOrderResponses(maxPipelined), api);
        return channel;
    }

    private static FullHttpRequest request(String uri) {
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
    }

    /** The API stand-in: records each request handed to it and answers it when the test says. */
    private static final class HeldAnswers extends ChannelInboundHandlerAdapter {
        final List<String> handed = new ArrayList<>();
        private ChannelHandlerContext ctx;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            this.ctx = ctx;
            FullHttpRequest request = (FullHttpRequest) msg;
            handed.add(request.uri());
            request.release();
        }

        /** Writes the answer to the {@code index}th request handed on, without flushing it. */
        void answer(int index, int bytes) {
            assertThat(handed).hasSizeGreaterThan(index);
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(new byte[bytes]));
            ctx.write(response);
        }
    }
}
