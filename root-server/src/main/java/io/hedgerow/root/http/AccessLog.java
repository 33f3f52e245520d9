package io.hedgerow.root.http;

import io.hedgerow.common.time.Ticker;
import io.netty.channel.ChannelFuture;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The root's access log: one line per HTTP answer, on the logger {@value #LOGGER}, once the answer's
 * last byte is written (or its write failed):
 *
 * <pre>request_id=3kq9zt1c-1f client=127.0.0.1:53122 method=GET uri="/search?q=europe" status=200 bytes=1834 took_ms=4.210</pre>
 *
 * {@code took_ms} counts from the request's first byte, as the root's latency metrics do. A write that
 * failed adds {@code failed="..."}.
 *
 * <p>It never holds up an event loop: common's {@code logback.xml} gives the logger an {@code
 * AsyncAppender} that drops lines when its queue is full rather than wait, so the loop only formats
 * the line. The logger is off by default ({@code HEDGEROW_ACCESS_LOG=INFO} turns it on); off, an
 * answer costs one level check and no listener.
 *
 * <p><b>Assumptions and guarantees.</b> Shared by every event loop; holds nothing mutable.
 */
final class AccessLog {
    static final String LOGGER = "hedgerow.access";

    private final Logger log;
    private final Ticker ticker;

    AccessLog(Ticker ticker) {
        this.log = LoggerFactory.getLogger(LOGGER);
        this.ticker = ticker;
    }

    /**
     * Writes the line of {@code exchange}'s answer when {@code written} completes.
     *
     * @param status the answer's status code
     * @param bytes  the size of its body
     */
    void answered(Exchange exchange, int status, long bytes, ChannelFuture written) {
        if (!log.isInfoEnabled()) {
            return;
        }
        written.addListener(future -> log.info(line(exchange.requestId(), exchange.ctx().channel().remoteAddress(),
                exchange.method().name(), exchange.request().uri(), status, bytes,
                ticker.nanoTime() - exchange.receivedNanos(), future.isSuccess() ? null : future.cause())));
    }

    static String line(String requestId, SocketAddress client, String method, String uri, int status, long bytes,
            long tookNanos, Throwable failure) {
        StringBuilder line = new StringBuilder(160 + uri.length());
        line.append("request_id=").append(requestId).append(" client=");
        if (client instanceof InetSocketAddress inet && inet.getAddress() != null) {
            line.append(inet.getAddress().getHostAddress()).append(':').append(inet.getPort());
        } else {
            line.append(client);
        }
        line.append(" method=").append(method).append(" uri=");
        quoted(line, uri);
        line.append(" status=").append(status).append(" bytes=").append(bytes)
                .append(" took_ms=");
        millis(line, tookNanos);
        if (failure != null) {
            line.append(" failed=");
            quoted(line, String.valueOf(failure));
        }
        return line.toString();
    }

    /** Milliseconds with three decimals (to the microsecond), without String.format's cost. */
    static void millis(StringBuilder line, long nanos) {
        long micros = Math.max(0, nanos) / 1000;
        long fraction = micros % 1000;
        line.append(micros / 1000).append('.');
        if (fraction < 100) {
            line.append(fraction < 10 ? "00" : "0");
        }
        line.append(fraction);
    }

    /** {@code value} in double quotes, with quotes, backslashes and control characters escaped: one line always. */
    static void quoted(StringBuilder line, String value) {
        line.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                line.append('\\').append(c);
            } else if (c < ' ' || c == 0x7f) {
                line.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
            } else {
                line.append(c);
            }
        }
        line.append('"');
    }
}
