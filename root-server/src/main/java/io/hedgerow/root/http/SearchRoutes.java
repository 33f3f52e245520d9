package io.hedgerow.root.http;

import io.hedgerow.api.CacheStatus;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.admission.AdmissionControl.Outcome;
import io.hedgerow.root.admission.AdmissionControl.Permit;
import io.hedgerow.root.admission.AdmissionControl;
import io.hedgerow.root.admission.AdmissionControl.Admitted;
import io.hedgerow.root.admission.AdmissionControl.Queued;
import io.hedgerow.root.admission.AdmissionControl.Refused;
import io.hedgerow.root.admission.AdmissionControl.Ticket;
import io.hedgerow.root.admission.Refusal;
import io.hedgerow.root.metrics.RequestLatency;
import io.hedgerow.root.metrics.RootMetrics.RequestError;
import io.hedgerow.root.metrics.RootMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.function.BooleanSupplier;

/**
 * {@code GET} and {@code POST /search}: parses the request, asks admission control for a place
 * (a 503 {@code shutting_down} when the root is stopping), runs the search with its deadline
 * counted from the request's first byte, and answers. Over the limit the search waits in
 * admission control's queue: its callback, called on the thread of the search that freed the
 * place, hands it back to its own connection's event loop; a client that disconnects meanwhile
 * takes it out of the queue. A search the queue refuses is answered at once with a 503 {@code
 * overloaded} and {@code Retry-After}. Each answer is timed from that first byte to its last byte
 * written ({@link RequestLatency}, by outcome), and each admitted search reports its end to
 * admission control.
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
    private final long defaultTimeoutNanos;
    private final SlowQueryLog slowQueries;

    /**
     * @param ticker              the ticker {@link RequestTimer} stamps first bytes with
     * @param stopping            true once the root is stopping: searches are then refused
     * @param defaultTimeoutNanos a search's timeout when it asks for none: admission refuses a
     *                            search whose deadline would pass in its queue
     */
    SearchRoutes(HttpApiServer.SearchService service, SearchRequestParser parser, AdmissionControl admission, RootMetrics metrics,
            Ticker ticker, BooleanSupplier stopping, long defaultTimeoutNanos, SlowQueryLog slowQueries) {
        this.slowQueries = slowQueries;
        this.defaultTimeoutNanos = defaultTimeoutNanos;
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
        long timeoutNanos = search.timeoutMillis() > 0 ? search.timeoutMillis() * 1_000_000L : defaultTimeoutNanos;
        QueuedSearch waiting = new QueuedSearch(exchange, search);
        switch (admission.acquire(search.priority(), exchange.receivedNanos(), exchange.receivedNanos() + timeoutNanos,
                waiting)) {
            case Admitted admitted -> run(exchange, search, admitted.permit());
            case Queued queued -> waiting.queued(queued.ticket());
            case Refused refused -> {
                metrics.requestRejected(RequestError.OVERLOADED);
                answer(exchange, HttpApiHandler.errorResponse(exchange.ctx(), overloaded(search, refused.reason())),
                        RequestLatency.Outcome.REFUSED);
            }
        }
    }

    /**
     * A search waiting in admission control's queue: taken out when its connection closes, started on
     * its connection's event loop when its turn comes.
     */
    private final class QueuedSearch implements AdmissionControl.Waiter, ChannelFutureListener {
        private final Exchange exchange;
        private final SearchRequest search;
        /** Set on the connection's event loop once queued; read there (the close listener runs there too). */
        private Ticket ticket;

        QueuedSearch(Exchange exchange, SearchRequest search) {
            this.exchange = exchange;
            this.search = search;
        }

        void queued(Ticket queuedTicket) {
            this.ticket = queuedTicket;
            exchange.ctx().channel().closeFuture().addListener(this);
        }

        /** The connection closed while the search waited: it leaves the queue. */
        @Override
        public void operationComplete(ChannelFuture closed) {
            ticket.cancel();
        }

        @Override
        public void start(Permit permit, long queuedNanos) {
            // Called on the thread of the search that freed the place: the search runs on its own loop.
            exchange.ctx().executor().execute(() -> {
                exchange.ctx().channel().closeFuture().removeListener(this);
                if (!exchange.ctx().channel().isActive()) {
                    permit.release(Outcome.IGNORED, ticker.nanoTime()); // its client left: nothing to run
                    return;
                }
                run(exchange, search, permit);
            });
        }
    }

    private void run(Exchange exchange, SearchRequest search, Permit permit) {
        service.search(search, exchange.receivedNanos(), slowQueries.tag(exchange.requestId())).whenComplete((result, failure) -> {
            if (failure == null) {
                long nowNanos = ticker.nanoTime();
                permit.release(result.cache() == CacheStatus.HIT ? Outcome.IGNORED : Outcome.SUCCESS, nowNanos);
                slowQueries.searched(exchange.requestId(), search, result, nowNanos - exchange.receivedNanos());
                sendResult(exchange, search, result);
            } else {
                Throwable cause = HttpApiHandler.unwrap(failure);
                long nowNanos = ticker.nanoTime();
                permit.release(admissionOutcome(cause), nowNanos);
                slowQueries.failed(exchange.requestId(), search, cause, nowNanos - exchange.receivedNanos());
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

    private ApiException overloaded(SearchRequest search, Refusal reason) {
        long retryAfterSeconds = admission.settings().retryAfter().toSeconds();
        String why = switch (reason) {
            case QUEUE_FULL -> admission.queueCapacity() == 0 ? "queues none"
                    : "its queue is full (" + admission.queued() + " waiting)";
            case DEADLINE -> "the search's deadline would pass in its queue";
            case STANDING_DELAY -> "its queue delay keeps growing (" + admission.lastWaitNanos() / 1_000_000 + " ms)";
        };
        return new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "overloaded", "the root is running all the "
                + search.priority().label() + " searches it can at once (" + admission.limit() + " in flight, "
                + admission.settings().algorithm().label() + " admission control) and " + why + " (refused: "
                + reason.label() + "); retry in " + retryAfterSeconds + " s")
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

    private void sendResult(Exchange exchange, SearchRequest search, SearchResult result) {
        ByteBuf body;
        try {
            // A trace the client did not ask for was built for the slow-query log: the answer leaves it out.
            body = JsonResponses.searchResult(exchange.ctx().alloc(), result, exchange.requestId(), search.explain());
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
