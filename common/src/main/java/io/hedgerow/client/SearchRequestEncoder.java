package io.hedgerow.client;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hedgerow.api.SearchRequest;

/**
 * A {@link SearchRequest} as the JSON body of {@code POST /search}, in the field names the root's
 * parser reads (its {@code SearchRequestParser.FIELDS}). Settings that mean "the cluster's default"
 * ({@code timeoutMillis}, {@code hedgeAfterMillis} and {@code minCoverage} at 0, no hedge mode, no
 * routing) are left out, so the root applies its own default, as it does in process.
 *
 * <p>A field added to {@link SearchRequest} is one more line here, and one more property in
 * {@code SearchRequest} of the root's {@code openapi.json}.
 */
final class SearchRequestEncoder {
    private SearchRequestEncoder() {
    }

    static ObjectNode encode(SearchRequest request) {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.put("query", request.query());
        body.put("k", request.k());
        if (request.timeoutMillis() > 0) {
            body.put("timeout_ms", request.timeoutMillis());
        }
        body.put("snippets", request.snippets());
        body.put("stored_fields", request.storedFields());
        body.put("total_hits_threshold", request.totalHitsThreshold());
        if (request.hedge() != null) {
            body.put("hedge", request.hedge().label());
        }
        if (request.hedgeAfterMillis() > 0) {
            body.put("hedge_after_ms", request.hedgeAfterMillis());
        }
        body.put("explain", request.explain());
        body.put("priority", request.priority().label());
        if (request.minCoverage() > 0) {
            body.put("min_coverage", request.minCoverage());
        }
        body.put("cache", request.cache());
        if (request.routing() != null) {
            body.put("routing", request.routing());
        }
        return body;
    }
}
