package io.hedgerow.loadgen.durability;

import java.util.Objects;

/**
 * One entry of a {@link History}, as Jepsen records them: a client's {@link Type#INVOKE} of an
 * operation, then exactly one completion of it ({@link Type#OK}, {@link Type#FAIL} or
 * {@link Type#INFO}); or a nemesis event.
 *
 * @param process   the client that issued it ({@code 0..}), or {@link #NEMESIS}
 * @param type      what this entry records
 * @param kind      the operation
 * @param id        the document's id; for a nemesis event, the fault's name
 * @param timeNanos when, in nanoseconds since the run started
 * @param detail    the answer's status and reason, or the fault's target; empty for an invoke
 */
public record Op(int process, Type type, Kind kind, String id, long timeNanos, String detail) {
    /** The process number of nemesis events. */
    public static final int NEMESIS = -1;

    /** What a history entry records. */
    public enum Type {
        /** A client sent the operation. */
        INVOKE,
        /** It was acknowledged: it happened. */
        OK,
        /** It was definitely refused: it did not happen (a 4xx the root gives before anything is written). */
        FAIL,
        /** Indeterminate: no answer, a timeout, or an answer that promises nothing (503, 5xx); it may have happened. */
        INFO
    }

    /** The operations of the set workload. */
    public enum Kind {
        /** Add a document with a new, unique id ({@code PUT /documents/{id}}). */
        ADD,
        /** Delete a document whose add was acknowledged ({@code DELETE /documents/{id}}). */
        DELETE,
        /** A fault started ({@code id} names it). */
        FAULT_START,
        /** A fault healed. */
        FAULT_END
    }

    public Op {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(id, "id");
        detail = detail == null ? "" : detail;
        if (process < NEMESIS) {
            throw new IllegalArgumentException("process: " + process + " (expected: >= 0, or -1 for the nemesis)");
        }
    }

    public static Op invoke(int process, Kind kind, String id, long timeNanos) {
        return new Op(process, Type.INVOKE, kind, id, timeNanos, "");
    }

    public static Op complete(int process, Type type, Kind kind, String id, long timeNanos, String detail) {
        if (type == Type.INVOKE) {
            throw new IllegalArgumentException("type: INVOKE (expected: OK, FAIL or INFO for a completion)");
        }
        return new Op(process, type, kind, id, timeNanos, detail);
    }

    public static Op nemesis(Kind kind, String fault, long timeNanos, String detail) {
        return new Op(NEMESIS, Type.INFO, kind, fault, timeNanos, detail);
    }

    public boolean isWrite() {
        return kind == Kind.ADD || kind == Kind.DELETE;
    }
}
