package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.leaf.index.DocumentMapper;
import java.util.Map;
import org.apache.lucene.document.Document;

/**
 * What a copy checks before it logs a write: as primary, an id, the expected version, a document
 * to delete, and a document the index config accepts; as replica, the op's content only (the
 * primary checked its version). Every check runs before the op is logged: an op logged and then
 * refused by Lucene would be replayed, and refused again, at every open of the copy. An upsert's
 * document is mapped once, by the check, and applied as it is ({@link Verdict#document}).
 */
final class OpChecks {
    /**
     * What the checks found: the result that refuses the op, or, when it may be written, the
     * document it writes (null for a delete), for the copy to apply rather than map it again.
     */
    record Verdict(WriteResult refused, Document document) {
        private static final Verdict DELETE = new Verdict(null, null);

        boolean passed() {
            return refused == null;
        }
    }

    /**
     * The largest op a copy takes (its encoded bytes): more than a catch-up read's byte cap
     * ({@link LivePartition#LOG_READ_BYTES}), so such an op goes alone in a read, and well within
     * a frame ({@code WireCodec.DEFAULT_MAX_FRAME_BYTES}, 16 MiB).
     */
    static final int MAX_OP_BYTES = 8 * 1024 * 1024;

    private final DocumentMapper mapper;

    OpChecks(DocumentMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * The primary's checks.
     *
     * @param current the document's version now: -1 when there is none, 0 for one from the build
     */
    Verdict check(WriteOp op, long current) {
        Verdict content = checkContent(op);
        if (!content.passed()) {
            return content;
        }
        if (op.getExpectedVersion() > 0 && current != op.getExpectedVersion()) {
            return refused(WriteOutcome.CONFLICT, "document '" + op.getId() + "' is at version "
                    + (current < 0 ? "none (it does not exist)" : Long.toString(current))
                    + " (expected: " + op.getExpectedVersion() + ")");
        }
        if (op.getCreateOnly() && current >= 0) {
            return refused(WriteOutcome.CONFLICT, "document '" + op.getId() + "' already exists, at version " + current
                    + " (expected: none, the write was create-only)");
        }
        if (op.getKind() == WriteKind.DELETE && current < 0) {
            return refused(WriteOutcome.NOT_FOUND, "no document '" + op.getId() + "'");
        }
        return content;
    }

    /**
     * What the op writes, whoever numbered it: an id, a kind that writes, a size a frame holds,
     * and a document the index config accepts.
     */
    Verdict checkContent(WriteOp op) {
        if (op.getId().isEmpty()) {
            return refused(WriteOutcome.REJECTED, "missing 'id' (expected: a non-empty string)");
        }
        int bytes = op.getSerializedSize();
        if (bytes > MAX_OP_BYTES) {
            return refused(WriteOutcome.REJECTED, "document '" + op.getId() + "' is " + bytes
                    + " bytes encoded (expected: at most " + MAX_OP_BYTES + ")");
        }
        switch (op.getKind()) {
            case DELETE -> {
                return Verdict.DELETE;
            }
            case UPSERT -> {
                try {
                    return new Verdict(null, mapper.toDocument(op.getId(), fieldsOf(op)));
                } catch (IllegalArgumentException e) {
                    return refused(WriteOutcome.REJECTED, e.getMessage());
                }
            }
            default -> {
                return refused(WriteOutcome.REJECTED, "a " + op.getKind() + " op in a write (expected: UPSERT or DELETE)");
            }
        }
    }

    private static Verdict refused(WriteOutcome outcome, String error) {
        return new Verdict(WriteResult.newBuilder().setOutcome(outcome).setError(error).build(), null);
    }

    /**
     * The op's fields by name, in their order, as {@link io.hedgerow.leaf.index.SourceDocument#fields()}
     * holds them for the offline build: a name written once is a string, a name repeated (a JSON
     * array, one entry per value, in order) a list of its values. An op logged before arrays were
     * carried has each name once, so it maps, and replays, as it always did.
     */
    static Map<String, Object> fieldsOf(WriteOp op) {
        return StoredFields.byName(op.getFieldsList());
    }
}
