package io.hedgerow.root.http;

import com.fasterxml.jackson.core.JsonGenerator;
import io.hedgerow.api.QueryPriority;
import io.hedgerow.root.admission.AdmissionControl;
import io.hedgerow.root.admission.Refusal;
import io.hedgerow.root.adapt.Probation;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafStatus;
import io.hedgerow.root.cluster.MembershipView;
import io.hedgerow.root.write.DocumentWriter;
import java.io.IOException;

/** The bodies of {@code GET /cluster} and {@code GET /health}. */
final class ClusterReport {
    private ClusterReport() {
    }

    static void writeCluster(JsonGenerator json, ClusterState cluster) throws IOException {
        writeCluster(json, cluster, null, null);
    }

    static void writeCluster(JsonGenerator json, ClusterState cluster, AdmissionControl admission, Readiness readiness)
            throws IOException {
        writeCluster(json, cluster, admission, readiness, null);
    }

    /**
     * As {@link #writeCluster(JsonGenerator, ClusterState)}, with readiness, admission control and the
     * write path's replicas ({@link WritesReport}) when given.
     */
    static void writeCluster(JsonGenerator json, ClusterState cluster, AdmissionControl admission, Readiness readiness,
            DocumentWriter documents) throws IOException {
        json.writeStartObject();
        if (readiness != null) {
            Readiness.State state = readiness.state();
            json.writeBooleanField("ready", state.ready());
            json.writeStringField("ready_status", state.status());
        }
        if (admission != null) {
            json.writeObjectFieldStart("admission");
            json.writeStringField("algorithm", admission.settings().algorithm().label());
            if (admission.enabled()) {
                json.writeNumberField("limit", admission.limit());
            }
            json.writeNumberField("inflight", admission.inflight());
            json.writeNumberField("admitted", admission.admitted());
            json.writeObjectFieldStart("queue");
            json.writeNumberField("queued", admission.queued());
            json.writeNumberField("capacity", admission.queueCapacity());
            long waited = admission.waited(); // read once: the count and the mean agree
            json.writeNumberField("waited", waited);
            json.writeNumberField("mean_delay_ms", waited == 0 ? 0.0 : admission.waitedNanos() / 1e6 / waited);
            json.writeNumberField("last_delay_ms", admission.lastWaitNanos() / 1e6);
            json.writeNumberField("abandoned", admission.abandoned());
            json.writeEndObject();
            json.writeObjectFieldStart("rejected");
            for (QueryPriority priority : QueryPriority.values()) {
                json.writeNumberField(priority.label(), admission.rejected(priority));
            }
            json.writeEndObject();
            json.writeObjectFieldStart("refused");
            for (Refusal reason : Refusal.values()) {
                json.writeNumberField(reason.label(), admission.refused(reason));
            }
            json.writeEndObject();
            json.writeNumberField("drops", admission.drops());
            json.writeEndObject();
        }
        json.writeStringField("index", cluster.config().indexName());
        if (cluster.index().identity() != null) {
            json.writeStringField("index_manifest_sha256", cluster.index().identity().getManifestSha256());
        }
        json.writeNumberField("partitions", cluster.config().partitions());
        json.writeNumberField("protocol_version", io.hedgerow.common.wire.Protocol.VERSION);
        json.writeNumberField("replicas", cluster.config().replicas());
        json.writeNumberField("docs", cluster.knownDocs());
        MembershipView members = cluster.membership();
        json.writeArrayFieldStart("leaves");
        for (LeafStatus leaf : cluster.leaves()) {
            if (leaf.vacant()) {
                continue; // a slot no leaf has filled yet
            }
            json.writeStartObject();
            json.writeNumberField("leaf", leaf.index());
            json.writeStringField("address", leaf.address().toString());
            if (!leaf.httpAddress().isEmpty()) {
                json.writeStringField("http", leaf.httpAddress());
            }
            Probation.State probation = cluster.probation().state(leaf.index());
            // Probation is reported over a leaf that is up: a leaf down or draining says so instead.
            json.writeStringField("state", probation.onProbation() && leaf.state() != LeafStatus.State.DOWN
                    && leaf.state() != LeafStatus.State.DRAINING ? "probation" : leaf.state().name().toLowerCase());
            if (probation.onProbation()) {
                json.writeObjectFieldStart("probation");
                json.writeStringField("reason", probation.reason());
                long agoNanos = cluster.nanoTime() - probation.sinceNanos();
                json.writeStringField("since", java.time.Instant.now().minusNanos(agoNanos).toString());
                json.writeNumberField("since_ms_ago", millis(agoNanos));
                json.writeEndObject();
            }
            if (cluster.slowStart().inSlowStart(leaf.index())) {
                json.writeNumberField("slow_start_share", cluster.slowStart().share(leaf.index(), cluster.nanoTime()));
            }
            json.writeNumberField("ready_connections", leaf.readyConnections());
            json.writeArrayFieldStart("partitions");
            for (int partition : cluster.assignment().partitionsOf(leaf.index())) {
                json.writeNumber(partition);
            }
            json.writeEndArray();
            json.writeNumberField("sub_requests", leaf.subRequests());
            json.writeNumberField("failures", leaf.failures());
            json.writeObjectFieldStart("latency_ms_last_10s");
            json.writeNumberField("count", leaf.latency().count());
            json.writeNumberField("p50", millis(leaf.latency().percentileNanos(50)));
            json.writeNumberField("p99", millis(leaf.latency().percentileNanos(99)));
            json.writeNumberField("leaf_p50", millis(leaf.leafTime().percentileNanos(50)));
            json.writeNumberField("leaf_p99", millis(leaf.leafTime().percentileNanos(99)));
            json.writeEndObject();
            if (leaf.refusal() != null) {
                json.writeStringField("refused", leaf.refusal());
            }
            LeafStatus.Supervision process = leaf.supervision();
            if (process != null) {
                json.writeObjectFieldStart("process");
                json.writeStringField("state", process.state());
                json.writeNumberField("restarts", process.restarts());
                if (process.detail() != null) {
                    json.writeStringField("detail", process.detail());
                }
                json.writeEndObject();
            }
            if (leaf.lastError() != null) {
                json.writeStringField("last_error", leaf.lastError());
            }
            if (members != null) {
                writeMember(json, members.leaves().get(leaf.index()));
            }
            json.writeEndObject();
        }
        json.writeEndArray();
        if (members != null) {
            writeMembership(json, members, cluster);
        }
        json.writeArrayFieldStart("partition_replicas");
        for (int p = 0; p < cluster.config().partitions(); p++) {
            json.writeStartObject();
            json.writeNumberField("partition", p);
            json.writeNumberField("docs", cluster.partitionDocCount(p));
            json.writeArrayFieldStart("leaves");
            for (int leaf : cluster.assignment().replicasOf(p)) {
                json.writeNumber(leaf);
            }
            json.writeEndArray();
            json.writeEndObject();
        }
        json.writeEndArray();
        PlacementJson.write(json, cluster);
        if (documents != null) {
            WritesReport.write(json, documents);
        }
        json.writeEndObject();
    }

    /** A configured leaf's {@code membership}: registered in ZooKeeper or not, under which node id, since when. */
    private static void writeMember(JsonGenerator json, MembershipView.Member member) throws IOException {
        json.writeObjectFieldStart("membership");
        json.writeStringField("state", switch (member.state()) {
            case REGISTERED -> "registered";
            case NOT_REGISTERED -> "not registered";
            case GONE -> "gone";
        });
        if (member.node() != null) {
            json.writeStringField("node", member.node().value());
        }
        if (member.sinceMillis() >= 0) {
            json.writeStringField("since", java.time.Instant.ofEpochMilli(member.sinceMillis()).toString());
        }
        json.writeEndObject();
    }

    /**
     * The {@code membership} section of a root with {@code --zk}: whether its view of ZooKeeper is
     * initialized, where the placement's load comes from, and the registered leaves none of
     * {@code --leaves} names ("registered, not configured": nothing is routed to them), and the leaf
     * slots: how many, how many filled, and why the last leaf turned away found none ({@code full}).
     */
    private static void writeMembership(JsonGenerator json, MembershipView members, ClusterState cluster)
            throws IOException {
        json.writeObjectFieldStart("membership");
        json.writeBooleanField("initialized", members.initialized());
        json.writeStringField("placement_load", members.loadPublished() ? "published by the leaves"
                : "this root's own traffic (no leaf published load)");
        json.writeArrayFieldStart("unconfigured_leaves");
        for (MembershipView.Stranger stranger : members.unconfigured()) {
            json.writeStartObject();
            json.writeStringField("node", stranger.node().value());
            json.writeStringField("address", stranger.address());
            json.writeStringField("state", "registered, not configured");
            json.writeStringField("since", java.time.Instant.ofEpochMilli(stranger.sinceMillis()).toString());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeObjectFieldStart("leaf_slots");
        json.writeNumberField("slots", cluster.leaves().size());
        json.writeNumberField("filled", cluster.filledSlots());
        String full = cluster.slotsFull();
        if (full != null && !members.unconfigured().isEmpty()) {
            json.writeStringField("full", full);
        }
        json.writeEndObject();
        json.writeEndObject();
    }

    /** "ok" when every leaf is up, "degraded" when some are, "down" when none. */
    static String health(ClusterState cluster) {
        long up = upLeaves(cluster);
        return up == cluster.filledSlots() ? "ok" : up == 0 ? "down" : "degraded";
    }

    static long upLeaves(ClusterState cluster) {
        return cluster.leaves().stream().filter(leaf -> !leaf.vacant() && leaf.state() != LeafStatus.State.DOWN)
                .count();
    }

    static void writeHealth(JsonGenerator json, ClusterState cluster) throws IOException {
        json.writeStartObject();
        json.writeStringField("status", health(cluster));
        json.writeNumberField("leaves_up", upLeaves(cluster));
        json.writeNumberField("leaves", cluster.filledSlots());
        json.writeEndObject();
    }

    private static double millis(long nanos) {
        return Math.round(nanos / 1000.0) / 1000.0;
    }
}
