package io.hedgerow.common.wire;

import io.hedgerow.common.wire.proto.ConnectionRole;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Hello;
import io.hedgerow.common.wire.proto.HelloAck;

/**
 * The version of the root-leaf protocol this build speaks, and the handshake that carries it.
 *
 * <p>Every connection to a leaf opens with a {@link Hello}; the leaf serves it only when the
 * versions are equal, and otherwise answers with an error and serves nothing on it, so a root and a
 * leaf of different versions never misread each other's requests during a rolling restart. The rule
 * for bumping {@link #VERSION} is written at the top of {@code leaf.proto}: bump whenever an older
 * peer that ignored or lacked the change would act wrongly rather than merely do less.
 *
 * <p>Version 0 is the protocol before the Hello existed: its roots open with an assignment, and its
 * leaves close a connection whose first frame is a Hello (an unknown frame to them).
 */
public final class Protocol {
    /**
     * 1: the Hello; leaves key requests by (root id, request id); root-named, stamped twin cancels;
     * twin grace; fetch by document id.
     */
    public static final int VERSION = 1;

    private Protocol() {
    }

    /** How the error of a leaf's refusal of new work while it shuts down begins (with status BUSY). */
    public static final String DRAINING = "draining";

    /** A root's first frame on a connection to a leaf of a cluster without a shared secret. */
    public static Frame rootHello(long rootId) {
        return rootHello(rootId, null);
    }

    /**
     * A root's first frame on a connection to a leaf.
     *
     * @param clusterSecret the cluster's shared secret; null or empty: none
     */
    public static Frame rootHello(long rootId, String clusterSecret) {
        if (rootId == 0) {
            throw new IllegalArgumentException("rootId: 0 (expected: non-zero; 0 means no root)");
        }
        return Frame.newBuilder().setHello(Hello.newBuilder()
                .setProtocolVersion(VERSION)
                .setRole(ConnectionRole.ROOT)
                .setRootId(rootId)
                .setClusterSecret(clusterSecret == null ? "" : clusterSecret)).build();
    }

    /** A leaf's first frame on a connection that carries its tied requests' cancels to another leaf. */
    public static Frame twinCancelsHello(String clusterSecret) {
        return Frame.newBuilder().setHello(Hello.newBuilder()
                .setProtocolVersion(VERSION)
                .setRole(ConnectionRole.TWIN_CANCELS)
                .setClusterSecret(clusterSecret == null ? "" : clusterSecret)).build();
    }

    /** A leaf's first frame on a connection that copies a snapshot's files from another leaf (peer recovery). */
    public static Frame peerRecoveryHello(String clusterSecret) {
        return Frame.newBuilder().setHello(Hello.newBuilder()
                .setProtocolVersion(VERSION)
                .setRole(ConnectionRole.PEER_RECOVERY)
                .setClusterSecret(clusterSecret == null ? "" : clusterSecret)).build();
    }

    /** A primary leaf's first frame on a connection that copies its numbered batches to a replica leaf. */
    public static Frame replicaCopiesHello(String clusterSecret) {
        return Frame.newBuilder().setHello(Hello.newBuilder()
                .setProtocolVersion(VERSION)
                .setRole(ConnectionRole.REPLICA_COPIES)
                .setClusterSecret(clusterSecret == null ? "" : clusterSecret)).build();
    }

    /**
     * Why a Hello's secret does not admit its sender, or null when it does: always when
     * {@code required} is null or empty (a cluster without a secret). Compared in constant time, so
     * the time of a refusal does not tell how much of a guess was right.
     *
     * @param peer what the other side is, for the message
     */
    public static String secretProblem(String required, String given, String peer) {
        if (required == null || required.isEmpty()) {
            return null;
        }
        if (given == null || given.isEmpty()) {
            return peer + " sent no cluster secret (expected: the cluster's shared secret in its Hello;"
                    + " this leaf was started with one)";
        }
        boolean equal = java.security.MessageDigest.isEqual(
                required.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                given.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return equal ? null : peer + " sent the wrong cluster secret (expected: this cluster's shared secret)";
    }

    /**
     * Why a peer speaking {@code peerVersion} cannot be served, or null when it can.
     *
     * @param peer what the other side is, for the message ("root 127.0.0.1:51234", "leaf 10.0.0.7:9001")
     * @param self what this side is ("this leaf", "this root")
     */
    public static String mismatch(int peerVersion, String peer, String self) {
        if (peerVersion == VERSION) {
            return null;
        }
        return peer + " speaks hedgerow protocol " + peerVersion + (peerVersion == 0 ? " (from before versions)" : "")
                + ", " + self + " speaks " + VERSION + " (expected: equal versions; mixed versions refuse each other"
                + " until the rolling restart is done)";
    }

    /**
     * Why a leaf's answer to this root's Hello refuses the connection: the error it gave, or a
     * protocol version other than this build's; null when the connection may be used.
     *
     * @param leaf what the leaf is, for the message ("leaf 10.0.0.7:9001")
     */
    public static String helloAckProblem(HelloAck ack, String leaf) {
        return !ack.getError().isEmpty() ? leaf + " refused this root: " + ack.getError()
                : mismatch(ack.getProtocolVersion(), leaf, "this root");
    }
}
