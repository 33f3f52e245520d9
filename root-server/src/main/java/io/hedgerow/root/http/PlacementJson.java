package io.hedgerow.root.http;

import com.fasterxml.jackson.core.JsonGenerator;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.PlacementSnapshot;
import io.hedgerow.root.placement.PlacementLeadership;
import io.hedgerow.root.placement.PlacementReport;
import java.io.IOException;
import java.time.Instant;
import java.util.Locale;

/** The {@code placement} section of {@code GET /cluster}: each leaf's target, copies on the move and why. */
final class PlacementJson {
    private PlacementJson() {
    }

    /**
     * The {@code placement_leader} section of a root sharing its plan through ZooKeeper: which root
     * decides placement, whether it is this one, and where the plan this root routes by came from.
     */
    private static void writeLeadership(JsonGenerator json, PlacementLeadership leadership) throws IOException {
        if (leadership == null) {
            return;
        }
        json.writeObjectFieldStart("placement_leader");
        json.writeStringField("this_root", leadership.self());
        json.writeBooleanField("leads", leadership.leads());
        if (leadership.leader() == null) {
            json.writeNullField("leader");
        } else {
            json.writeStringField("leader", leadership.leader());
        }
        json.writeStringField("plan_source", leadership.source());
        json.writeNumberField("stored_version", leadership.storedVersion());
        json.writeEndObject();
    }

    static void write(JsonGenerator json, ClusterState cluster) throws IOException {
        writeLeadership(json, cluster.placementLeadership());
        PlacementReport report = cluster.placementReport();
        if (report == null) {
            return;
        }
        long now = cluster.nanoTime();
        PlacementSnapshot snapshot = cluster.placement();
        json.writeObjectFieldStart("placement");
        json.writeNumberField("under_replicated_partitions", report.underReplicated());
        if (report.underReplicatedSinceNanos() >= 0) {
            writeSince(json, "under_replicated", now, report.underReplicatedSinceNanos());
        }
        if (report.lastFullReplicationNanos() >= 0) {
            json.writeNumberField("last_time_to_full_replication_ms", report.lastFullReplicationNanos() / 1_000_000);
        }
        json.writeArrayFieldStart("gone_leaves");
        for (int leaf : report.goneLeaves()) {
            json.writeNumber(leaf);
        }
        json.writeEndArray();
        json.writeArrayFieldStart("targets");
        for (int leaf = 0; leaf < snapshot.targetOfLeaf().length; leaf++) {
            json.writeStartObject();
            json.writeNumberField("leaf", leaf);
            json.writeNumberField("version", snapshot.targetVersion()[leaf]);
            json.writeArrayFieldStart("partitions");
            for (int p : snapshot.targetOfLeaf()[leaf]) {
                json.writeNumber(p);
            }
            json.writeEndArray();
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeArrayFieldStart("copies");
        for (PlacementReport.CopyView copy : report.copies()) {
            json.writeStartObject();
            json.writeNumberField("partition", copy.partition());
            json.writeNumberField("leaf", copy.leaf());
            json.writeStringField("reason", copy.reason().name().toLowerCase(Locale.ROOT));
            json.writeStringField("state", copy.state().name().toLowerCase(Locale.ROOT));
            json.writeStringField("why", copy.why());
            writeSince(json, "started", now, copy.startedNanos());
            writeSince(json, "since", now, copy.sinceNanos());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeArrayFieldStart("recent");
        for (PlacementReport.Move move : report.recent()) {
            json.writeStartObject();
            json.writeNumberField("partition", move.partition());
            json.writeNumberField("leaf", move.leaf());
            json.writeStringField("reason", move.reason().name().toLowerCase(Locale.ROOT));
            json.writeStringField("outcome", move.outcome());
            json.writeStringField("why", move.why());
            json.writeNumberField("took_ms", (move.endedNanos() - move.startedNanos()) / 1_000_000);
            writeSince(json, "ended", now, move.endedNanos());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeObjectFieldStart("counts");
        json.writeNumberField("re_replications", report.reReplications());
        json.writeNumberField("hot_copies", report.hotCopies());
        json.writeNumberField("rebalance_moves", report.rebalanceMoves());
        json.writeNumberField("opened", report.opened());
        json.writeNumberField("failed", report.failed());
        json.writeNumberField("retired", report.retired());
        json.writeEndObject();
        json.writeEndObject();
    }

    private static void writeSince(JsonGenerator json, String name, long now, long thenNanos) throws IOException {
        long agoNanos = now - thenNanos;
        json.writeStringField(name, Instant.now().minusNanos(agoNanos).toString());
        json.writeNumberField(name + "_ms_ago", agoNanos / 1_000_000);
    }
}
