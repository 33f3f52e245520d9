package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.leaf.index.DocumentMapper;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a partition's primary checks before it numbers a write: an id, the expected version, a
 * document to delete, and a document the index config accepts. Replicas take what the primary
 * numbered without checking again.
 */
final class OpChecks {
    private final DocumentMapper mapper;

    OpChecks(DocumentMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * @param current the document's version now: -1 when there is none, 0 for one from the build
     * @return null when the op may be written, else the result that refuses it
     */
    WriteResult check(WriteOp op, long current) {
        if (op.getId().isEmpty()) {
            return refused(WriteOutcome.REJECTED, "missing 'id' (expected: a non-empty string)");
        }
        if (op.getExpectedVersion() > 0 && current != op.getExpectedVersion()) {
            return refused(WriteOutcome.CONFLICT, "document '" + op.getId() + "' is at version "
                    + (current < 0 ? "none (it does not exist)" : Long.toString(current))
                    + " (expected: " + op.getExpectedVersion() + ")");
        }
        switch (op.getKind()) {
            case DELETE -> {
                if (current < 0) {
                    return refused(WriteOutcome.NOT_FOUND, "no document '" + op.getId() + "'");
                }
            }
            case UPSERT -> {
                try {
                    mapper.toDocument(op.getId(), fieldsOf(op));
                } catch (IllegalArgumentException e) {
                    return refused(WriteOutcome.REJECTED, e.getMessage());
                }
            }
            default -> {
                return refused(WriteOutcome.REJECTED, "a " + op.getKind() + " op in a write (expected: UPSERT or DELETE)");
            }
        }
        return null;
    }

    private static WriteResult refused(WriteOutcome outcome, String error) {
        return WriteResult.newBuilder().setOutcome(outcome).setError(error).build();
    }

    /** The op's fields by name, in their order. */
    static Map<String, String> fieldsOf(WriteOp op) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (StoredField field : op.getFieldsList()) {
            fields.put(field.getName(), field.getValue());
        }
        return fields;
    }
}
