package io.hedgerow.root.http;

import io.hedgerow.api.SearchRequest;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * The root's own parser of {@code POST /search} bodies, opened to the load generator's tests (it is
 * package-private in the root): a body it refuses would be a 400, an error of every run that sends it.
 */
public final class RootSearchParser {
    private static final SearchRequestParser PARSER = new SearchRequestParser(60_000);

    private RootSearchParser() {
    }

    /**
     * The search {@code json} asks for.
     *
     * @throws IllegalArgumentException with the root's message when it refuses the body
     */
    public static SearchRequest parse(String json) {
        try {
            return PARSER.fromJson(Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8)));
        } catch (ApiException e) {
            throw new IllegalArgumentException("the root refuses " + json + ": " + e.getMessage(), e);
        }
    }
}
