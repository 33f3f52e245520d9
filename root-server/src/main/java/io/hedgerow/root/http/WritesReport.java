package io.hedgerow.root.http;

import com.fasterxml.jackson.core.JsonGenerator;
import io.hedgerow.root.write.DocumentWriter;
import io.hedgerow.root.write.ReplicaStatus;
import java.io.IOException;

/**
 * The {@code writes} section of {@code /cluster}: per partition, the primary, the in-sync replicas
 * and the out-of-sync ones, each with the seq up to which it is known to hold every write (absent
 * when unknown: unreachable since the root started) and, out of sync, why.
 */
final class WritesReport {
    private WritesReport() {
    }

    static void write(JsonGenerator json, DocumentWriter documents) throws IOException {
        json.writeObjectFieldStart("writes");
        json.writeArrayFieldStart("partitions");
        for (int p = 0; p < documents.partitions(); p++) {
            json.writeStartObject();
            json.writeNumberField("partition", p);
            ReplicaStatus primary = documents.replicas(p).stream().filter(ReplicaStatus::primary).findFirst().orElse(null);
            if (primary == null) {
                json.writeNullField("primary");
            } else {
                json.writeStringField("primary", primary.leaf().toString());
            }
            writeReplicas(json, "in_sync", documents, p, true);
            writeReplicas(json, "out_of_sync", documents, p, false);
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    private static void writeReplicas(JsonGenerator json, String name, DocumentWriter documents, int partition,
            boolean inSync) throws IOException {
        json.writeArrayFieldStart(name);
        for (ReplicaStatus replica : documents.replicas(partition)) {
            if (replica.inSync() != inSync) {
                continue;
            }
            json.writeStartObject();
            json.writeStringField("leaf", replica.leaf().toString());
            if (replica.knownSeq() >= 0) {
                json.writeNumberField("seq", replica.knownSeq());
            }
            if (replica.problem() != null) {
                json.writeStringField("problem", replica.problem());
            }
            json.writeEndObject();
        }
        json.writeEndArray();
    }
}
