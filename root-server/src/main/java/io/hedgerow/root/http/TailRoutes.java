package io.hedgerow.root.http;

import com.fasterxml.jackson.core.JsonGenerator;
import io.hedgerow.root.tail.Blocklist;
import io.hedgerow.root.tail.ResultCache;
import io.hedgerow.root.tail.TailGuard;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;

/**
 * {@code /admin/blocklist} and {@code /admin/cache}: what the root's tail policies hold, for
 * operators. Every root has them, managed or not: a query refused as dangerous stays refused until
 * its entry expires or someone clears it here.
 * <ul>
 *   <li>{@code GET /admin/blocklist}: every blocklisted query, most recent first, with its reason,
 *       age and time to live;</li>
 *   <li>{@code DELETE /admin/blocklist}: clears it; {@code DELETE /admin/blocklist/{id}}: one entry;</li>
 *   <li>{@code GET /admin/cache}: the result cache's counters and size;
 *       {@code DELETE /admin/cache}: drops every cached result (after reindexing, say).</li>
 * </ul>
 */
final class TailRoutes implements Routes {
    static final String BLOCKLIST = "/admin/blocklist";
    static final String CACHE = "/admin/cache";

    private final TailGuard tail;

    TailRoutes(TailGuard tail) {
        this.tail = tail;
    }

    @Override
    public boolean handles(String path) {
        return path.equals(BLOCKLIST) || path.startsWith(BLOCKLIST + "/") || path.equals(CACHE);
    }

    /** The blocklist and the cache are operators' tools: they need the admin token. */
    @Override
    public boolean needsAdminToken() {
        return true;
    }

    @Override
    public void handle(Exchange exchange) throws ApiException {
        FullHttpRequest request = exchange.request();
        String path = exchange.path();
        if (path.equals(CACHE)) {
            cache(exchange, request);
        } else if (path.equals(BLOCKLIST)) {
            blocklist(exchange, request);
        } else {
            AdminRoutes.requireMethod(request, "DELETE", HttpMethod.DELETE);
            String id = path.substring(BLOCKLIST.length() + 1);
            if (!tail.blocklist().removeById(id)) {
                throw new ApiException(HttpResponseStatus.NOT_FOUND, "not_found", "no blocklisted query has the id '"
                        + id + "' (GET " + BLOCKLIST + " lists them)");
            }
            answer(exchange, json -> {
                json.writeStringField("result", "removed");
                json.writeStringField("id", id);
            });
        }
    }

    private void blocklist(Exchange exchange, FullHttpRequest request) throws ApiException {
        AdminRoutes.requireMethod(request, "GET, DELETE", HttpMethod.GET, HttpMethod.DELETE);
        Blocklist blocklist = tail.blocklist();
        if (request.method() == HttpMethod.DELETE) {
            int removed = blocklist.clear();
            answer(exchange, json -> {
                json.writeStringField("result", "cleared");
                json.writeNumberField("removed", removed);
            });
            return;
        }
        answer(exchange, json -> {
            json.writeNumberField("blocked_total", blocklist.blockedTotal());
            json.writeArrayFieldStart("entries");
            for (Blocklist.Entry entry : blocklist.list()) {
                json.writeStartObject();
                json.writeStringField("id", entry.fingerprint().id());
                json.writeStringField("query", entry.fingerprint().text());
                json.writeStringField("reason", entry.reason().label());
                json.writeStringField("detail", entry.detail());
                json.writeNumberField("age_ms", blocklist.ageNanos(entry) / 1_000_000);
                json.writeNumberField("expires_in_ms", blocklist.expiresInNanos(entry) / 1_000_000);
                json.writeEndObject();
            }
            json.writeEndArray();
        });
    }

    private void cache(Exchange exchange, FullHttpRequest request) throws ApiException {
        AdminRoutes.requireMethod(request, "GET, DELETE", HttpMethod.GET, HttpMethod.DELETE);
        if (request.method() == HttpMethod.DELETE) {
            long entries = tail.cache().stats().entries();
            tail.cache().invalidateAll();
            answer(exchange, json -> {
                json.writeStringField("result", "cleared");
                json.writeNumberField("removed", entries);
            });
            return;
        }
        ResultCache.Stats stats = tail.cache().stats();
        answer(exchange, json -> {
            json.writeBooleanField("enabled", tail.settings().cacheEnabled());
            json.writeNumberField("entries", stats.entries());
            json.writeNumberField("tainted_entries", stats.taintedEntries());
            json.writeNumberField("bytes", stats.bytes());
            json.writeNumberField("hits", stats.hits());
            json.writeNumberField("misses", stats.misses());
            json.writeNumberField("refreshed", stats.taintedLookups());
            json.writeNumberField("served_tainted", stats.servedTainted());
            json.writeNumberField("hit_rate", Math.round(stats.hitRate() * 1e4) / 1e4);
            json.writeNumberField("evictions", stats.evictions());
            json.writeNumberField("expirations", stats.expirations());
            json.writeNumberField("stores_kept_better", stats.storesKeptBetter());
            json.writeNumberField("stores_after_clear", stats.storesAfterClear());
        });
    }

    @FunctionalInterface
    private interface Fields {
        void write(JsonGenerator json) throws IOException;
    }

    private static void answer(Exchange exchange, Fields fields) {
        HttpApiHandler.send(exchange, HttpResponseStatus.OK, HttpApiHandler.JSON_TYPE,
                JsonResponses.write(exchange.ctx().alloc(), json -> {
                    json.writeStartObject();
                    fields.write(json);
                    json.writeEndObject();
                }));
    }

}
