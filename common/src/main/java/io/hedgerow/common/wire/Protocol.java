package io.hedgerow.common.wire;

import io.hedgerow.common.wire.proto.ConnectionRole;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Hello;

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

    /** A root's first frame on a connection to a leaf. */
    public static Frame rootHello(long rootId) {
        if (rootId == 0) {
            throw new IllegalArgumentException("rootId: 0 (expected: non-zero; 0 means no root)");
        }
        return Frame.newBuilder().setHello(Hello.newBuilder()
                .setProtocolVersion(VERSION)
                .setRole(ConnectionRole.ROOT)
                .setRootId(rootId)).build();
    }

    /** A leaf's first frame on a connection that carries its tied requests' cancels to another leaf. */
    public static Frame twinCancelsHello() {
        return Frame.newBuilder().setHello(Hello.newBuilder()
                .setProtocolVersion(VERSION)
                .setRole(ConnectionRole.TWIN_CANCELS)).build();
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
}
