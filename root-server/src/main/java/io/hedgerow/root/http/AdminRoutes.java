package io.hedgerow.root.http;

import com.fasterxml.jackson.core.JsonGenerator;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.fault.InjectedStall;
import io.hedgerow.root.fault.LeafFaultException;
import io.hedgerow.root.fault.LeafFaults;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * {@code /admin/leaves/{n}/restart}, {@code /admin/leaves/restart?rolling=true}, {@code /admin/leaves/{n}/delay}
 * and {@code /admin/leaves/{n}/stall}:
 * operations on the leaves for fault scenarios, tests and demos. Only roots that manage their leaves have them (a local
 * cluster, or an embedded cluster with fault injection), so a production root has no admin
 * surface at all. Every answer is JSON; every refusal is {@code {"error", "detail"}}.
 *
 * <p><b>Assumptions and guarantees.</b> Runs on the HTTP connection's event loop and never blocks
 * it: restarts run on the {@link LeafAdmin}'s own thread, and injections wait for the leaf's ack
 * asynchronously.
 */
final class AdminRoutes implements Routes {
    static final String PREFIX = "/admin/leaves/";

    private final LeafAdmin processes;
    private final LeafFaults faults;

    AdminRoutes(LeafAdmin processes, LeafFaults faults) {
        this.processes = processes;
        this.faults = faults;
    }

    @Override
    public boolean handles(String path) {
        return path.startsWith(PREFIX);
    }

    /** Restarts and fault injection: only with the admin token. */
    @Override
    public boolean needsAdminToken() {
        return true;
    }

    @Override
    public void handle(Exchange exchange) throws ApiException {
        FullHttpRequest request = exchange.request();
        String path = exchange.path();
        String rest = path.substring(PREFIX.length());
        if (rest.equals("restart")) {
            requireMethod(request, "POST", HttpMethod.POST);
            java.util.List<String> rolling = exchange.uri().parameters().getOrDefault("rolling", java.util.List.of());
            if (!rolling.equals(java.util.List.of("true"))) {
                throw new ApiException(HttpResponseStatus.BAD_REQUEST, "bad_request", "rolling: "
                        + (rolling.isEmpty() ? "missing" : String.join(",", rolling))
                        + " (expected: true; only rolling restarts of all leaves exist)");
            }
            rollingRestart(exchange);
            return;
        }
        int slash = rest.indexOf('/');
        String action = slash < 0 ? "" : rest.substring(slash + 1);
        switch (action) {
            case "restart" -> {
                requireMethod(request, "POST", HttpMethod.POST);
                restart(exchange, leafNumber(rest.substring(0, slash)));
            }
            case "delay" -> {
                requireMethod(request, "POST, DELETE", HttpMethod.POST, HttpMethod.DELETE);
                int leaf = leafNumber(rest.substring(0, slash));
                InjectedDelay delay = InjectedDelay.NONE;
                if (request.method() == HttpMethod.POST) {
                    HttpApiHandler.requireJson(request);
                    delay = DelayRequestParser.parse(request.content());
                }
                inject(exchange, leaf, "a delay", faults.injectDelay(leaf, delay), AdminRoutes::writeDelay);
            }
            case "stall" -> {
                requireMethod(request, "POST, DELETE", HttpMethod.POST, HttpMethod.DELETE);
                int leaf = leafNumber(rest.substring(0, slash));
                InjectedStall stall = InjectedStall.NONE;
                if (request.method() == HttpMethod.POST) {
                    HttpApiHandler.requireJson(request);
                    stall = StallRequestParser.parse(request.content());
                }
                inject(exchange, leaf, "a stall", faults.injectStall(leaf, stall), AdminRoutes::writeStall);
            }
            default -> throw new ApiException(HttpResponseStatus.NOT_FOUND, "not_found", "no such path: " + path
                    + " (expected: /admin/leaves/{n}/restart, /admin/leaves/{n}/delay or /admin/leaves/{n}/stall)");
        }
    }

    private void rollingRestart(Exchange exchange) {
        processes.restartAllRolling().whenComplete((done, failure) -> {
            Throwable cause = HttpApiHandler.unwrap(failure);
            if (cause == null) {
                HttpApiHandler.send(exchange, HttpResponseStatus.OK, HttpApiHandler.JSON_TYPE,
                        JsonResponses.write(exchange.ctx().alloc(), json -> {
                            json.writeStartObject();
                            json.writeStringField("result", done);
                            json.writeEndObject();
                        }));
            } else if (cause instanceof IllegalStateException) {
                HttpApiHandler.sendError(exchange, new ApiException(HttpResponseStatus.CONFLICT, "conflict", cause.getMessage()));
            } else if (cause instanceof UnsupportedOperationException) {
                HttpApiHandler.sendError(exchange, new ApiException(HttpResponseStatus.NOT_IMPLEMENTED,
                        "not_implemented", cause.getMessage()));
            } else {
                HttpApiHandler.sendError(exchange, HttpApiHandler.internalError("the rolling restart", cause));
            }
        });
    }

    private void restart(Exchange exchange, int leaf) {
        processes.restartLeaf(leaf).whenComplete((done, failure) -> {
            Throwable cause = HttpApiHandler.unwrap(failure);
            if (cause == null) {
                HttpApiHandler.send(exchange, HttpResponseStatus.OK, HttpApiHandler.JSON_TYPE, JsonResponses.write(exchange.ctx().alloc(), json -> {
                    json.writeStartObject();
                    json.writeNumberField("leaf", leaf);
                    json.writeStringField("result", done);
                    json.writeEndObject();
                }));
            } else if (cause instanceof IllegalStateException) {
                HttpApiHandler.sendError(exchange, new ApiException(HttpResponseStatus.CONFLICT, "conflict", cause.getMessage()));
            } else if (cause instanceof IllegalArgumentException) {
                HttpApiHandler.sendError(exchange, new ApiException(HttpResponseStatus.NOT_FOUND, "not_found", cause.getMessage()));
            } else if (cause instanceof UnsupportedOperationException) {
                HttpApiHandler.sendError(exchange, new ApiException(HttpResponseStatus.NOT_IMPLEMENTED,
                        "not_implemented", cause.getMessage()));
            } else {
                HttpApiHandler.sendError(exchange, HttpApiHandler.internalError("restarting leaf " + leaf, cause));
            }
        });
    }

    /** How an applied fault is written into the answer, after {@code "leaf"}. */
    @FunctionalInterface
    private interface FaultWriter<T> {
        void write(JsonGenerator json, T applied) throws IOException;
    }

    private static void writeDelay(JsonGenerator json, InjectedDelay applied) throws IOException {
        if (applied.clears()) {
            json.writeStringField("result", "cleared");
            return;
        }
        json.writeStringField("result", "delaying sub-requests by " + applied.describe());
        json.writeNumberField("delay_ms", applied.delayNanos() / 1e6);
        json.writeNumberField("probability", applied.probability());
        json.writeNumberField("duration_ms", applied.durationNanos() / 1_000_000);
        json.writeNumberField("seed", applied.seed());
        json.writeStringField("distribution", applied.distribution().label());
    }

    private static void writeStall(JsonGenerator json, InjectedStall applied) throws IOException {
        if (applied.clears()) {
            json.writeStringField("result", "cleared");
            return;
        }
        json.writeStringField("result", "stalling the leaf for " + applied.describe());
        json.writeNumberField("stall_ms", applied.stallNanos() / 1e6);
        json.writeNumberField("every_ms", applied.periodNanos() / 1e6);
        json.writeNumberField("duration_ms", applied.durationNanos() / 1_000_000);
    }

    /** Answers with what the leaf applied, or the error that kept it from applying it. */
    private static <T> void inject(Exchange exchange, int leaf, String what, CompletableFuture<T> injected,
            FaultWriter<T> writer) {
        injected.whenComplete((applied, failure) -> {
            Throwable cause = HttpApiHandler.unwrap(failure);
            if (cause == null) {
                HttpApiHandler.send(exchange, HttpResponseStatus.OK, HttpApiHandler.JSON_TYPE, JsonResponses.write(exchange.ctx().alloc(), json -> {
                    json.writeStartObject();
                    json.writeNumberField("leaf", leaf);
                    writer.write(json, applied);
                    json.writeEndObject();
                }));
            } else if (cause instanceof LeafFaultException e) {
                HttpApiHandler.sendError(exchange, switch (e.kind()) {
                    case NO_SUCH_LEAF -> new ApiException(HttpResponseStatus.NOT_FOUND, "not_found", e.getMessage());
                    case REFUSED -> new ApiException(HttpResponseStatus.CONFLICT, "conflict", e.getMessage());
                    case UNAVAILABLE -> new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "unavailable", e.getMessage());
                    case TIMED_OUT -> new ApiException(HttpResponseStatus.GATEWAY_TIMEOUT, "timed_out", e.getMessage());
                });
            } else {
                HttpApiHandler.sendError(exchange, HttpApiHandler.internalError("injecting " + what + " into leaf " + leaf, cause));
            }
        });
    }

    private static int leafNumber(String text) throws ApiException {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("leaf: '" + text + "' (expected: a leaf number)");
        }
    }

    /** Refuses with a 405 naming {@code allowed} unless the request's method is one of {@code methods}. */
    static void requireMethod(FullHttpRequest request, String allowed, HttpMethod... methods) throws ApiException {
        for (HttpMethod method : methods) {
            if (request.method() == method) {
                return;
            }
        }
        throw HttpApiHandler.methodNotAllowed(request, allowed);
    }
}
