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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

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
 * numbering: another root may hold the same leaf in another slot (it listed its leaves in another
 * order, or leaves joined it at run time in another order). A reader with {@link LeafSlots} therefore
 * maps each copy by its {@code address} to its own slot, filling a vacant slot for a leaf it has not
 * met. Only when an address has no slot there and none is vacant (a root that dials a leaf at another
 * address, through a relay) and its slot count is the writer's, does it read the numbers as positions,
 * as every root did before addresses were stored (they then had to list the same leaves in the same
 * order); a plan without addresses is read so too. A plan whose writer did not know a leaf of the
 * reader's {@code --leaves} ({@code known_leaves}: the writer's filled slots) does not fit the reader,
 * which then goes by its own assignment, as a plan for another number of leaves did before. Stateless
 * and thread-safe.
 */
final class PlanCodec {
    private static final System.Logger LOG = System.getLogger(PlanCodec.class.getName());
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
        return decode(bytes, version, null);
    }

    /**
     * @param slots the reader's slots: copies are mapped to them by address (vacant slots filled for
     *              leaves not met yet); null: by position, sized as written
     * @return the plan, or, when it names more leaves new to this root than it has vacant slots, a stored
     *         plan without one saying why ({@link StoredPlan#misfit})
     * @throws IllegalArgumentException naming what is wrong, for bytes that are not a plan
     */
    static StoredPlan decode(byte[] bytes, int version, LeafSlots slots) {
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
        Map<String, Integer> slotOf;
        try {
            slotOf = slots == null ? null : slotsByAddress(root, slots);
        } catch (Misfit e) {
            return new StoredPlan(root.get("leader").asText(), null, version, e.getMessage());
        }
        List<List<PlacementPlan.PlannedCopy>> copies = new ArrayList<>();
        for (JsonNode partition : root.get("partitions")) {
            List<PlacementPlan.PlannedCopy> list = new ArrayList<>();
            for (JsonNode copy : partition) {
                int leaf = slotOf == null ? copy.path("leaf").asInt(-1) : slotOf.get(copy.path("address").asText());
                list.add(new PlacementPlan.PlannedCopy(leaf,
                        Placement.Reason.valueOf(copy.path("reason").asText().toUpperCase(Locale.ROOT)),
                        Placement.CopyState.valueOf(copy.path("state").asText().toUpperCase(Locale.ROOT))));
            }
            copies.add(list);
        }
        List<Long> versions = new ArrayList<>();
        if (slotOf == null) {
            for (JsonNode v : root.get("target_versions")) {
                versions.add(v.asLong());
            }
        } else {
            for (int slot = 0; slot < slots.slots(); slot++) {
                versions.add(0L);
            }
            root.path("target_versions_by_address").fields().forEachRemaining(e -> {
                Integer slot = slotOf.get(e.getKey());
                if (slot != null) {
                    versions.set(slot, e.getValue().asLong());
                }
            });
        }
        return new StoredPlan(root.get("leader").asText(), new PlacementPlan(copies, versions), version);
    }

    /**
     * Whether every leaf the plan names that this root knows sits in this root's slot of the number
     * the writer gave it: only then may the rest (leaves dialled through a relay) be read by position.
     * A root that numbers its leaves otherwise (another --leaves order, leaves joined in another order)
     * would route every copy to the wrong leaf (review of join31, finding 3).
     */
    private static boolean knownAtTheWritersPositions(JsonNode root, LeafSlots slots) {
        for (JsonNode partition : root.get("partitions")) {
            for (JsonNode copy : partition) {
                int here = slots.slotOf(copy.path("address").asText());
                if (here >= 0 && here != copy.path("leaf").asInt(-1)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** A well-formed plan that names leaves this root has no slot for. */
    private static final class Misfit extends Exception {
        Misfit(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Each address the plan names, to this root's slot; null when the plan must be read by position
     * (it names no addresses, or names one this root has no room for while its slot count is the writer's).
     */
    private static Map<String, Integer> slotsByAddress(JsonNode root, LeafSlots slots) throws Misfit {
        Set<String> named = new LinkedHashSet<>();
        for (JsonNode partition : root.get("partitions")) {
            for (JsonNode copy : partition) {
                if (!copy.path("address").isTextual()) {
                    return null; // a plan from before addresses: by position
                }
                named.add(copy.path("address").asText());
            }
        }
        List<String> unknown = named.stream().filter(address -> slots.slotOf(address) < 0).toList();
        if (unknown.size() > slots.vacant()) {
            // By position only with no slot vacant (review42 finding 2): a copy read onto a vacant slot
            // would sit where no connection goes and no write can reach.
            if (slots.vacant() == 0 && root.path("leaves").asInt(-1) == slots.slots()
                    && knownAtTheWritersPositions(root, slots)) {
                LOG.log(System.Logger.Level.WARNING, "placement: the stored plan names leaves " + unknown
                        + ", which this root does not dial at those addresses and has no vacant slot for: read by"
                        + " position, as its --leaves must then list the leaves in the leader's order");
                return null;
            }
            throw new Misfit("the stored placement plan names leaves " + unknown + ", which have no slot here"
                    + " (expected: at most " + slots.vacant() + " leaves new to this root, its vacant slots: raise"
                    + " --leaf-slots)");
        }
        if (root.path("known_leaves").isArray()) {
            // A plan whose writer did not know a leaf this root was started with gave that leaf nothing by
            // ignorance, not by decision (a root started with fewer leaves): it does not fit, as a plan for
            // another number of leaves did not. Leaves that joined this root at run time are not asked for.
            Set<String> known = new LinkedHashSet<>();
            root.get("known_leaves").forEach(leaf -> known.add(leaf.asText()));
            List<String> missing = slots.configured().stream().filter(leaf -> !known.contains(leaf)).toList();
            if (!missing.isEmpty()) {
                throw new Misfit("the stored placement plan was written by a root that did not know leaves " + missing
                        + " of this root's --leaves (expected: a plan over them all)");
            }
        }
        Map<String, Integer> slotOf = new HashMap<>();
        for (String address : named) {
            int slot = slots.fill(address);
            if (slot < 0) {
                throw new Misfit("the stored placement plan names leaf " + address + ", which has no slot here"
                        + " (expected: a vacant slot for it: raise --leaf-slots)");
            }
            slotOf.put(address, slot);
        }
        return slotOf;
    }
}
