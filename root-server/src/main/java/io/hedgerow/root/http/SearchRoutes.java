package io.hedgerow.root.http;

import io.hedgerow.api.CacheStatus;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.admission.AdmissionControl.Outcome;
import io.hedgerow.root.admission.AdmissionControl.Permit;
import io.hedgerow.root.admission.AdmissionControl;
import io.hedgerow.root.metrics.RequestLatency;
import io.hedgerow.root.metrics.RootMetrics.RequestError;
import io.hedgerow.root.metrics.RootMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.function.BooleanSupplier;

/**
 * {@code GET} and {@code POST /search}: parses the request, asks admission control for a place
 * (refusing at once with a 503 {@code overloaded} and {@code Retry-After} when there is none, or a
 * 503 {@code shutting_down} when the root is stopping), runs the search with its deadline counted
 * from the request's first byte, and answers. Each answer is timed from that first byte to its
 * last byte written ({@link RequestLatency}, by outcome), and each admitted search reports its end
 * to admission control.
 */
final class SearchRoutes implements Routes {
    static final String PATH = "/search";

    private static final System.Logger LOG = System.getLogger(SearchRoutes.class.getName());

    private final HttpApiServer.SearchService service;
    private final SearchRequestParser parser;
    private final AdmissionControl admission;
    private final RootMetrics metrics;
    private final Ticker ticker;
    private final BooleanSupplier stopping;

    /**
     * @param ticker   the ticker {@link RequestTimer} stamps first bytes with
     * @param stopping true once the root is stopping: searches are then refused
     */
    SearchRoutes(HttpApiServer.SearchService service, SearchRequestParser parser, AdmissionControl admission, RootMetrics metrics,
            Ticker ticker, BooleanSupplier stopping) {
        this.service = service;
        this.parser = parser;
        this.admission = admission;
        this.metrics = metrics;
        this.ticker = ticker;
        this.stopping = stopping;
    }

    @Override
    public boolean handles(String path) {
        return PATH.equals(path);
    }

    @Override
    public void handle(Exchange exchange) {
        metrics.searchRequested();
        SearchRequest search;
        try {
            search = parse(exchange);
        } catch (ApiException e) {
            metrics.requestRejected(e.status() == HttpResponseStatus.NOT_FOUND ? RequestError.NOT_FOUND : RequestError.BAD_REQUEST);
            answer(exchange, HttpApiHandler.errorResponse(exchange.ctx(), e), RequestLatency.Outcome.ERROR);
            return;
        }
        if (stopping.getAsBoolean()) {
            metrics.requestRejected(RequestError.SHUTTING_DOWN);
            answer(exchange, HttpApiHandler.errorResponse(exchange.ctx(), new ApiException(
                    HttpResponseStatus.SERVICE_UNAVAILABLE, "shutting_down", "the root is stopping; send it elsewhere")),
                    RequestLatency.Outcome.REFUSED);
            return;
        }
        Permit permit = admission.tryAcquire(search.priority(), exchange.receivedNanos());
        if (permit == null) {
            metrics.requestRejected(RequestError.OVERLOADED);
            answer(exchange, HttpApiHandler.errorResponse(exchange.ctx(), overloaded(search)), RequestLatency.Outcome.REFUSED);
            return;
        }
        service.search(search, exchange.receivedNanos()).whenComplete((result, failure) -> {
            if (failure == null) {
                permit.release(result.cache() == CacheStatus.HIT ? Outcome.IGNORED : Outcome.SUCCESS, ticker.nanoTime());
                sendResult(exchange, result);
            } else {
                Throwable cause = HttpApiHandler.unwrap(failure);
                permit.release(admissionOutcome(cause), ticker.nanoTime());
                answer(exchange, HttpApiHandler.errorResponse(exchange.ctx(), toApiException(cause)),
                        RequestLatency.Outcome.ERROR);
            }
        });
    }

    private SearchRequest parse(Exchange exchange) throws ApiException {
        if (exchange.method() == HttpMethod.GET) {
            return parser.fromParameters(exchange.uri().parameters());
        }
        if (exchange.method() == HttpMethod.POST) {
            HttpApiHandler.requireJson(exchange.request());
            if (!exchange.uri().parameters().isEmpty()) {
                throw ApiException.badRequest("POST /search takes its settings in the JSON body, not in the URL");
            }
            return parser.fromJson(exchange.request().content());
        }
        throw HttpApiHandler.methodNotAllowed(exchange.request(), "GET, POST");
    }

    private ApiException overloaded(SearchRequest search) {
        long retryAfterSeconds = admission.settings().retryAfter().toSeconds();
        return new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "overloaded", "the root is running all the "
                + search.priority().label() + " searches it can at once (" + admission.limit() + " in flight, "
                + admission.settings().algorithm().label() + " admission control); retry in " + retryAfterSeconds + " s")
                .withHeader(HttpHeaderNames.RETRY_AFTER, retryAfterSeconds);
    }

    /** What a failed search tells admission control about the cluster's load. */
    private static Outcome admissionOutcome(Throwable cause) {
        if (cause instanceof SearchException e) {
            return switch (e.kind()) {
                // For want of capacity: the cluster could not answer in time.
                case TIMED_OUT, UNAVAILABLE -> Outcome.DROPPED;
                // The query's own fault, or a refusal that ran nothing.
                case BAD_QUERY, DANGEROUS, BLOCKLISTED, SHUTTING_DOWN -> Outcome.IGNORED;
            };
        }
        return Outcome.IGNORED;
    }

    static ApiException toApiException(Throwable cause) {
        if (cause instanceof SearchException e) {
            return switch (e.kind()) {
                case BAD_QUERY -> new ApiException(HttpResponseStatus.BAD_REQUEST, "bad_query", e.getMessage());
                case TIMED_OUT -> new ApiException(HttpResponseStatus.GATEWAY_TIMEOUT, "timed_out", e.getMessage());
                case UNAVAILABLE -> new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "unavailable", e.getMessage());
                case SHUTTING_DOWN -> new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "shutting_down", e.getMessage());
                case DANGEROUS -> new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "dangerous_query", e.getMessage());
                case BLOCKLISTED -> new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "blocklisted", e.getMessage());
            };
        }
        return HttpApiHandler.internalError("search failed unexpectedly", cause);
    }

    private void sendResult(Exchange exchange, SearchResult result) {
        ByteBuf body;
        try {
            body = JsonResponses.searchResult(exchange.ctx().alloc(), result);
        } catch (RuntimeException e) {
            answer(exchange, HttpApiHandler.errorResponse(exchange.ctx(), HttpApiHandler.internalError("writing a result", e)),
                    RequestLatency.Outcome.ERROR);
            return;
        }
        answer(exchange, HttpApiHandler.response(HttpResponseStatus.OK, HttpApiHandler.JSON_TYPE, body),
                result.tainted() ? RequestLatency.Outcome.TAINTED : RequestLatency.Outcome.COMPLETE);
    }

    /** Writes the answer and records its time from the first byte in to the last byte written. */
    private void answer(Exchange exchange, FullHttpResponse response, RequestLatency.Outcome outcome) {
        HttpApiHandler.write(exchange, response).addListener(future -> {
            if (!future.isSuccess()) {
                LOG.log(System.Logger.Level.DEBUG, () -> "answer to a search not written: " + future.cause());
            }
            metrics.requestLatency().record(outcome, ticker.nanoTime() - exchange.receivedNanos());
        });
    }
}
