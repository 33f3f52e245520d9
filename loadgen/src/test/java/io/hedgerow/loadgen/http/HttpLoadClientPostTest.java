package io.hedgerow.loadgen.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.loadgen.http.LoopbackHttp.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Over a real socket: a pre-built POST goes out whole with its JSON headers, as often as it is sent
 * (its body buffer is shared by every send, never consumed), on one keep-alive connection between GETs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpLoadClientPostTest {
    private final BlockingQueue<String> received = new LinkedBlockingQueue<>();
    private LoopbackHttp http;

    @BeforeEach
    void start() throws Exception {
        http = LoopbackHttp.serving(request -> {
            received.add(request.method() + " " + request.uri() + " " + request.contentType() + " " + request.body());
            // A 400 for a bad body, as the root answers one: the listener must hear it as such.
            return Reply.of(request.body().contains("bad") ? 400 : 200, "{\"tainted\":false,\"hits\":[]}");
        });
    }

    @AfterEach
    void stop() {
        http.close();
    }

    @Test
    void sendsThePreBuiltBodyWholeEveryTime() throws Exception {
        HttpLoadClient client = http.client(1);
        LoadRequest post = LoadRequest.postJson("/search", "{\"query\":\"r\u00e9sum\u00e9\",\"aggs\":{\"langs\":{\"terms\":{\"field\":\"lang\"}}}}");
        LoadRequest longer = LoadRequest.postJson("/search", "{\"query\":\"parliament\",\"from\":20}");
        LoadRequest bad = LoadRequest.postJson("/search", "{\"query\":\"bad\"}");

        List<Integer> statuses = new ArrayList<>();
        for (LoadRequest request : List.of(post, longer, post, LoadRequest.get("/search?q=x"), post, bad)) {
            statuses.add(LoopbackHttp.send(client, request).status());
        }

        String json = "application/json";
        assertThat(List.of(received.take(), received.take(), received.take(), received.take(), received.take(),
                received.take())).containsExactly(
                "POST /search " + json + " " + post.bodyText(),
                "POST /search " + json + " " + longer.bodyText(),
                "POST /search " + json + " " + post.bodyText(),
                "GET /search?q=x null ",
                "POST /search " + json + " " + post.bodyText(),
                "POST /search " + json + " {\"query\":\"bad\"}");
        assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 400);
        assertThat(post.body().readableBytes()).as("the shared body is not consumed")
                .isEqualTo(post.bodyText().getBytes(StandardCharsets.UTF_8).length);
    }
}
