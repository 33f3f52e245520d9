package io.hedgerow.root.placement.shared;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hedgerow.root.placement.Placement;
import io.hedgerow.root.placement.PlacementPlan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The placement znode's bytes: JSON, readable with {@code zkCli get}.
 * <pre>
 * {"leader": "root-1f…@127.0.0.1:8080", "leaves": 4,
 *  "partitions": [[{"leaf": 0, "reason": "original", "state": "serving"}, …], …],
 *  "target_versions": [3, 0, 5, 1]}
 * </pre>
 * Stateless and thread-safe.
 */
final class PlanCodec {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PlanCodec() {
    }

    static byte[] encode(String leader, PlacementPlan plan) {
        ObjectNode root = JSON.createObjectNode();
        root.put("leader", leader);
        root.put("leaves", plan.leaves());
        ArrayNode partitions = root.putArray("partitions");
        for (List<PlacementPlan.PlannedCopy> copies : plan.copies()) {
            ArrayNode list = partitions.addArray();
            for (PlacementPlan.PlannedCopy copy : copies) {
                list.addObject().put("leaf", copy.leaf())
                        .put("reason", copy.reason().name().toLowerCase(Locale.ROOT))
                        .put("state", copy.state().name().toLowerCase(Locale.ROOT));
            }
        }
        ArrayNode versions = root.putArray("target_versions");
        plan.targetVersion().forEach(versions::add);
        try {
            return JSON.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new IllegalStateException("encoding the placement plan", e);
        }
    }

    /** @throws IllegalArgumentException naming what is wrong, for bytes that are not a plan */
    static StoredPlan decode(byte[] bytes, int version) {
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (IOException e) {
            throw new IllegalArgumentException("placement plan: not JSON (" + e.getMessage() + ")", e);
        }
        if (root == null || !root.path("partitions").isArray() || !root.path("target_versions").isArray()
                || !root.path("leader").isTextual()) {
            throw new IllegalArgumentException("placement plan: " + (root == null ? "empty" : root.toString())
                    + " (expected: an object with leader, partitions and target_versions)");
        }
        List<List<PlacementPlan.PlannedCopy>> copies = new ArrayList<>();
        for (JsonNode partition : root.get("partitions")) {
            List<PlacementPlan.PlannedCopy> list = new ArrayList<>();
            for (JsonNode copy : partition) {
                list.add(new PlacementPlan.PlannedCopy(copy.path("leaf").asInt(-1),
                        Placement.Reason.valueOf(copy.path("reason").asText().toUpperCase(Locale.ROOT)),
                        Placement.CopyState.valueOf(copy.path("state").asText().toUpperCase(Locale.ROOT))));
            }
            copies.add(list);
        }
        List<Long> versions = new ArrayList<>();
        for (JsonNode v : root.get("target_versions")) {
            versions.add(v.asLong());
        }
        return new StoredPlan(root.get("leader").asText(), new PlacementPlan(copies, versions), version);
    }
}
