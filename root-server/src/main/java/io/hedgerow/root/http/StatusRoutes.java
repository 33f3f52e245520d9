package io.hedgerow.root.http;

import io.hedgerow.root.admission.AdmissionControl;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.write.DocumentWriter;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Set;

/**
 * What the root says about itself: {@code /health} (alive, and how many leaves it reaches),
 * {@code /ready} (warmed, and able to answer every partition: send it traffic), {@code /cluster},
 * {@code /metrics}, {@code /metrics/latency}, {@code /metrics/leaves} (each leaf's latency
 * histograms, {@link LeafLatencyReport}) and {@code /metrics/summary} (the console's running totals,
 * {@link MetricsSummary}). All {@code GET}, none limited by admission control.
 */
final class StatusRoutes implements Routes {
    private static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    private static final Set<String> PATHS = Set.of("/health", "/ready", "/cluster", "/metrics", "/metrics/latency",
            "/metrics/leaves", "/metrics/summary");

    private final ClusterState cluster;
    private final RootMetrics metrics;
    private final AdmissionControl admission;
    private final Readiness readiness;
    /** Null for a root without live writes. */
    private final DocumentWriter documents;

    StatusRoutes(ClusterState cluster, RootMetrics metrics, AdmissionControl admission, Readiness readiness,
            DocumentWriter documents) {
        this.documents = documents;
        this.cluster = cluster;
        this.metrics = metrics;
        this.admission = admission;
        this.readiness = readiness;
    }

    @Override
    public boolean handles(String path) {
        return PATHS.contains(path);
    }

    @Override
    public void handle(Exchange exchange) throws ApiException {
        if (exchange.method() != HttpMethod.GET) {
            throw HttpApiHandler.methodNotAllowed(exchange.request(), "GET");
        }
        var ctx = exchange.ctx();
        switch (exchange.path()) {
            // Liveness: answered at all means the process and its event loop work, whatever the leaves
            // do (a probe that restarts a root because its leaves are down only adds a cold root).
            // Whether to send it traffic is /ready's question.
            case "/health" -> HttpApiHandler.send(exchange, HttpResponseStatus.OK, HttpApiHandler.JSON_TYPE,
                    JsonResponses.write(ctx.alloc(), json -> ClusterReport.writeHealth(json, cluster)));
            case "/ready" -> {
                Readiness.State state = readiness.state();
                HttpApiHandler.send(exchange, state.ready() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                        HttpApiHandler.JSON_TYPE, JsonResponses.write(ctx.alloc(), json -> {
                            json.writeStartObject();
                            json.writeBooleanField("ready", state.ready());
                            json.writeStringField("status", state.status());
                            json.writeStringField("detail", state.detail());
                            json.writeEndObject();
                        }));
            }
            case "/cluster" -> HttpApiHandler.send(exchange, HttpResponseStatus.OK, HttpApiHandler.JSON_TYPE,
                    JsonResponses.write(ctx.alloc(), json -> ClusterReport.writeCluster(json, cluster, admission, readiness,
                            documents)));
            case "/metrics" -> HttpApiHandler.send(exchange, HttpResponseStatus.OK, PROMETHEUS_TYPE,
                    ByteBufUtil.writeUtf8(ctx.alloc(), metrics.scrape()));
            case "/metrics/leaves" -> HttpApiHandler.send(exchange, HttpResponseStatus.OK, HttpApiHandler.JSON_TYPE,
                    JsonResponses.write(ctx.alloc(), json -> LeafLatencyReport.write(json, cluster,
                            metrics.leafLatency().snapshot())));
            case "/metrics/summary" -> HttpApiHandler.send(exchange, HttpResponseStatus.OK, HttpApiHandler.JSON_TYPE,
                    JsonResponses.write(ctx.alloc(), json -> MetricsSummary.write(json, metrics, System.currentTimeMillis())));
            default -> HttpApiHandler.send(exchange, HttpResponseStatus.OK, HttpApiHandler.JSON_TYPE, JsonResponses.write(
                    ctx.alloc(), json -> JsonResponses.writeRequestLatency(json, metrics.requestLatency().snapshot())));
        }
    }
}
