package io.hedgerow.coordination;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * A membership znode's bytes: JSON, readable with {@code zkCli.sh get}, e.g.
 * {@code {"format":1,"address":"10.0.0.2:9300","incarnation":"5f0c...","served_nanos":{"0":1200000}}};
 * the incarnation is hex, so a reader in any language keeps all 64 bits. Bytes that are not JSON are
 * read as the address alone, the form the first registrations wrote. Unknown fields are ignored.
 */
public final class LeafEntryCodec {
    static final int FORMAT = 1;

    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private LeafEntryCodec() {
    }

    /** The stored form; field names are the JSON's. */
    private record Stored(int format, String address, String incarnation,
            @com.fasterxml.jackson.annotation.JsonProperty("served_nanos") Map<String, Long> servedNanos) {
    }

    public static byte[] encode(LeafEntry entry) {
        Map<String, Long> served = new TreeMap<>();
        entry.servedNanos().forEach((p, nanos) -> served.put(Integer.toString(p), nanos));
        try {
            return JSON.writeValueAsBytes(new Stored(FORMAT, entry.address(), Long.toHexString(entry.incarnation()),
                    served));
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode " + entry, e); // strings and numbers always encode
        }
    }

    /**
     * The entry in {@code bytes}; null or empty bytes are an entry with an empty address.
     *
     * @throws IllegalArgumentException when the bytes are JSON but not an entry
     */
    public static LeafEntry decode(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return LeafEntry.addressOnly("");
        }
        if (bytes[0] != '{') {
            return LeafEntry.addressOnly(new String(bytes, StandardCharsets.UTF_8));
        }
        Stored stored;
        try {
            stored = JSON.readValue(bytes, Stored.class);
        } catch (IOException e) {
            throw new IllegalArgumentException("leaf entry: " + new String(bytes, StandardCharsets.UTF_8)
                    + " (expected: JSON with address, incarnation and served_nanos): " + e.getMessage(), e);
        }
        if (stored.address() == null) {
            throw new IllegalArgumentException("leaf entry: " + new String(bytes, StandardCharsets.UTF_8)
                    + " (expected: an address)");
        }
        Map<Integer, Long> served = new TreeMap<>();
        try {
            if (stored.servedNanos() != null) {
                stored.servedNanos().forEach((p, nanos) -> served.put(Integer.parseInt(p), nanos));
            }
            long incarnation = stored.incarnation() == null ? 0 : Long.parseUnsignedLong(stored.incarnation(), 16);
            return new LeafEntry(stored.address(), incarnation, served);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("leaf entry: " + new String(bytes, StandardCharsets.UTF_8)
                    + " (expected: a hex incarnation and numeric partitions): " + e.getMessage(), e);
        }
    }
}
