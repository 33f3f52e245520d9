package io.hedgerow.root.placement.shared;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hedgerow.root.placement.Placement;
import io.hedgerow.root.placement.PlacementPlan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The placement znode's bytes: JSON, readable with {@code zkCli get}.
 * <pre>
 * {"leader": "root-1f…@127.0.0.1:8080", "leaves": 4,
 *  "partitions": [[{"leaf": 0, "address": "10.0.0.5:9300", "reason": "original", "state": "serving"}, …], …],
 *  "target_versions": [3, 0, 5, 1],
 *  "known_leaves": ["10.0.0.5:9300", …],
 *  "target_versions_by_address": {"10.0.0.5:9300": 3, …}}
 * </pre>
 * <b>A leaf is its address.</b> The {@code leaf} numbers are the writing root's leaf slots, its own
 * numbering: another root may hold the same leaf in another slot. The writer therefore stores each
 * copy's {@code address}, its filled slots ({@code known_leaves}) and the target versions by address;
 * {@link #read} gives the plan back as written, and a reader maps it to its own slots with
 * {@link PlanSlotMapper}. Only the wire format lives here: {@link #encode} reads the writer's addresses,
 * and nothing here changes a root's slots. Stateless and thread-safe.
 */
final class PlanCodec {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PlanCodec() {
    }

    /** Without addresses: read back by position only (tests of the format). */
    static byte[] encode(String leader, PlacementPlan plan) {
        return encode(leader, plan, null);
    }

    /** @param slots the writer's slots, whose addresses name each copy's leaf; null: positions only */
    static byte[] encode(String leader, PlacementPlan plan, LeafSlots slots) {
        ObjectNode root = JSON.createObjectNode();
        root.put("leader", leader);
        root.put("leaves", plan.leaves());
        ArrayNode partitions = root.putArray("partitions");
        for (List<PlacementPlan.PlannedCopy> copies : plan.copies()) {
            ArrayNode list = partitions.addArray();
            for (PlacementPlan.PlannedCopy copy : copies) {
                ObjectNode node = list.addObject().put("leaf", copy.leaf());
                String address = slots == null ? null : slots.addressOf(copy.leaf());
                if (slots != null && address == null) {
                    throw new IllegalStateException("leaf slot " + copy.leaf() + ": vacant, yet the plan holds a copy"
                            + " there (expected: copies only on slots a leaf filled)");
                }
                if (address != null) {
                    node.put("address", address);
                }
                node.put("reason", copy.reason().name().toLowerCase(Locale.ROOT))
                        .put("state", copy.state().name().toLowerCase(Locale.ROOT));
            }
        }
        ArrayNode versions = root.putArray("target_versions");
        plan.targetVersion().forEach(versions::add);
        if (slots != null) {
            ArrayNode known = root.putArray("known_leaves");
            for (int slot = 0; slot < slots.slots(); slot++) {
                if (slots.addressOf(slot) != null) {
                    known.add(slots.addressOf(slot));
                }
            }
            ObjectNode byAddress = root.putObject("target_versions_by_address");
            for (int slot = 0; slot < plan.leaves(); slot++) {
                String address = slots.addressOf(slot);
                if (address != null) {
                    byAddress.put(address, plan.targetVersion().get(slot));
                }
            }
        }
        try {
            return JSON.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new IllegalStateException("encoding the placement plan", e);
        }
    }

    /** By position, sized as written. @throws IllegalArgumentException naming what is wrong, for bytes that are not a plan */
    static StoredPlan decode(byte[] bytes, int version) {
        WrittenPlan written = read(bytes);
        return new StoredPlan(written.leader(), written.byPosition(), version);
    }

    /**
     * The plan as its writer stored it, in the writer's slot numbers: pure (a reader maps it to its own
     * slots with {@link PlanSlotMapper}).
     *
     * @throws IllegalArgumentException naming what is wrong, for bytes that are not a plan
     */
    static WrittenPlan read(byte[] bytes) {
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
        List<List<WrittenPlan.Copy>> partitions = new ArrayList<>();
        for (JsonNode partition : root.get("partitions")) {
            List<WrittenPlan.Copy> list = new ArrayList<>();
            for (JsonNode copy : partition) {
                list.add(new WrittenPlan.Copy(copy.path("leaf").asInt(-1),
                        copy.path("address").isTextual() ? copy.path("address").asText() : null,
                        Placement.Reason.valueOf(copy.path("reason").asText().toUpperCase(Locale.ROOT)),
                        Placement.CopyState.valueOf(copy.path("state").asText().toUpperCase(Locale.ROOT))));
            }
            partitions.add(list);
        }
        List<Long> versions = new ArrayList<>();
        root.get("target_versions").forEach(v -> versions.add(v.asLong()));
        List<String> known = null;
        if (root.path("known_leaves").isArray()) {
            known = new ArrayList<>();
            for (JsonNode leaf : root.get("known_leaves")) {
                known.add(leaf.asText());
            }
        }
        Map<String, Long> byAddress = null;
        if (root.path("target_versions_by_address").isObject()) {
            Map<String, Long> map = new HashMap<>();
            root.get("target_versions_by_address").fields()
                    .forEachRemaining(e -> map.put(e.getKey(), e.getValue().asLong()));
            byAddress = map;
        }
        return new WrittenPlan(root.get("leader").asText(), root.path("leaves").asInt(-1), partitions, versions, known,
                byAddress);
    }
}
