package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which client ids are taken as they are, what the root makes otherwise, and the access log's line. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RequestIdsTest {
    @Test
    void takesAVisibleAsciiIdUpTo128CharactersAsItIs() {
        RequestIds ids = new RequestIds(new Random(7));

        assertThat(ids.of(new DefaultHttpHeaders().add("X-Request-Id", "4bf92f35-77b3:a/b_c.d"))).isEqualTo(
                "4bf92f35-77b3:a/b_c.d");
        assertThat(ids.of(new DefaultHttpHeaders().add("x-request-id", "x".repeat(128)))).hasSize(128);
    }

    @Test
    void replacesAnIdThatCouldBreakOrForgeALogLine() {
        for (String unsafe : new String[] {"", "x".repeat(129), "two words", "line\nbreak", "quote\"", "back\\slash",
                "caf\u00e9", "tab\t"}) {
            assertThat(RequestIds.acceptable(unsafe)).as("'%s'", unsafe).isFalse();
        }
        RequestIds ids = new RequestIds(new Random(7));
        assertThat(ids.of(new DefaultHttpHeaders().add("X-Request-Id", "two words"))).matches("[0-9a-z]+-1");
    }

    @Test
    void madeIdsShareTheRootsPrefixAndNeverRepeat() {
        RequestIds ids = new RequestIds(new Random(7));
        Set<String> made = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            made.add(ids.next());
        }
        assertThat(made).hasSize(1000);
        String prefix = ids.next().split("-")[0];
        assertThat(made).allMatch(id -> id.startsWith(prefix + "-"));
        assertThat(new RequestIds(new Random(8)).next()).doesNotStartWith(prefix + "-");
    }

    @Test
    void anAccessLineHasOneFieldPerFactAndQuotesTheUri() {
        String line = AccessLog.line("r-1", new InetSocketAddress("127.0.0.1", 5555), "GET",
                "/search?q=\"a b\"\n", 200, 1834, 4_210_400, null);

        assertThat(line).isEqualTo("request_id=r-1 client=127.0.0.1:5555 method=GET uri=\"/search?q=\\\"a b\\\"\\x0a\""
                + " status=200 bytes=1834 took_ms=4.210");
        assertThat(AccessLog.line("r-2", new InetSocketAddress("127.0.0.1", 1), "POST", "/search", 503, 0, 7_000,
                new java.io.IOException("reset")))
                .endsWith("status=503 bytes=0 took_ms=0.007 failed=\"java.io.IOException: reset\"");
    }
}
