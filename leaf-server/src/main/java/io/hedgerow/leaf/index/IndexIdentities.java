package io.hedgerow.leaf.index;

import io.hedgerow.common.wire.proto.IndexIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The identity of an index as a leaf tells it to a root in its handshake: name, partition count and
 * the SHA-256 of the manifest's canonical JSON ({@link PartitionStore#canonicalJson}). The manifest
 * holds the config queries are parsed with, the fields seen, each partition's document count and the
 * time the index was finished, so two leaves have equal hashes exactly when they serve copies of
 * one build of one index: two builds of the same documents differ (their doc ids may too), and so
 * does the same index cut into another number of partitions.
 */
public final class IndexIdentities {
    private IndexIdentities() {
    }

    /** The identity of {@code manifest}, carrying the manifest itself so a root can parse queries as leaves do. */
    public static IndexIdentity of(IndexManifest manifest) {
        String json = PartitionStore.canonicalJson(manifest);
        return IndexIdentity.newBuilder()
                .setName(manifest.name())
                .setPartitions(manifest.partitions())
                .setManifestSha256(sha256(json))
                .setManifestJson(json)
                .build();
    }

    /**
     * The manifest an identity carries, checked against its name, partition count and hash.
     *
     * @throws IOException naming what does not match, or why the manifest does not parse
     */
    public static IndexManifest manifestOf(IndexIdentity identity) throws IOException {
        String hash = sha256(identity.getManifestJson());
        if (!hash.equals(identity.getManifestSha256())) {
            throw new IOException("manifest_sha256: " + identity.getManifestSha256() + " (expected: " + hash
                    + ", the hash of the manifest it came with)");
        }
        IndexManifest manifest = PartitionStore.parseManifest(identity.getManifestJson());
        if (!manifest.name().equals(identity.getName()) || manifest.partitions() != identity.getPartitions()) {
            throw new IOException("index '" + identity.getName() + "' with " + identity.getPartitions()
                    + " partitions (expected: '" + manifest.name() + "' with " + manifest.partitions()
                    + ", as its manifest says)");
        }
        return manifest;
    }

    /** One line naming an identity: {@code europarl (16 partitions, manifest 3f2a9c0d1e4b)}. */
    public static String describe(IndexIdentity identity) {
        String hash = identity.getManifestSha256();
        return "'" + identity.getName() + "' (" + identity.getPartitions() + " partitions, manifest "
                + hash.substring(0, Math.min(12, hash.length())) + ")";
    }

    static String sha256(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
