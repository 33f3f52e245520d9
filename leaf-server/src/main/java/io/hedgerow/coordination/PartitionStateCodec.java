package io.hedgerow.coordination;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A partition znode's bytes: JSON, readable with {@code zkCli.sh get}, e.g.
 * {@code {"format":1,"partition":3,"primaryTerm":2,"primary":"leaf-1","inSync":["leaf-1","leaf-2"]}}.
 * The version is not in the bytes: it is the znode's own. Unknown fields are ignored, so a later
 * Hedgerow can add fields (such as a placement target) that this one reads past.
 */
public final class PartitionStateCodec {
    static final int FORMAT = 1;

    private final ObjectMapper json = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** The stored form; field names are the JSON's. */
    private record Stored(int format, int partition, long primaryTerm, String primary, List<String> inSync) {
    }

    public byte[] encode(PartitionState state) {
        List<String> inSync = state.inSync().stream().map(NodeId::value).toList();
        try {
            return json.writeValueAsBytes(new Stored(FORMAT, state.partition(), state.primaryTerm(),
                    state.primary().value(), inSync));
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode " + state, e); // records of strings and numbers always encode
        }
    }

    /**
     * The state in {@code bytes}, read from partition {@code partition}'s znode at {@code version}.
     *
     * @throws CoordinationException when the bytes are not a valid state of that partition
     */
    public PartitionState decode(int partition, byte[] bytes, int version) throws CoordinationException {
        try {
            Stored stored = json.readValue(bytes, Stored.class);
            if (stored.format() != FORMAT) {
                throw new IllegalArgumentException("format: " + stored.format() + " (expected: " + FORMAT + ")");
            }
            if (stored.partition() != partition) {
                throw new IllegalArgumentException("partition: " + stored.partition() + " (expected: " + partition
                        + ", the znode's name)");
            }
            if (stored.primary() == null || stored.inSync() == null) {
                throw new IllegalArgumentException("primary and inSync must be present");
            }
            Set<NodeId> inSync = new TreeSet<>();
            for (String node : stored.inSync()) {
                inSync.add(NodeId.of(node));
            }
            return new PartitionState(partition, stored.primaryTerm(), NodeId.of(stored.primary()), inSync, version);
        } catch (IOException | IllegalArgumentException | NullPointerException e) {
            throw new CoordinationException("partition " + partition + ": unreadable state at version " + version
                    + " (expected: JSON of format " + FORMAT + "): " + e.getMessage(), e);
        }
    }
}
