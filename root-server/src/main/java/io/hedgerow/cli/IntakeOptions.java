package io.hedgerow.cli;

import io.hedgerow.root.admission.AdmissionSettings;
import io.hedgerow.root.cost.BatchAdmissionSettings;
import io.hedgerow.root.http.HttpSettings;
import picocli.CommandLine.Option;

/**
 * The root's intake options, shared by {@code root}, {@code local} and {@code demo}: admission
 * control (of searches, and of batch work at the leaves) and the tokens.
 */
final class IntakeOptions {
    @Option(names = "--admission", paramLabel = "ALGORITHM", defaultValue = "vegas",
            description = "How many searches the root runs at once; the excess waits in a queue (--admission-queue) and"
                    + " is refused at once with 503 overloaded and Retry-After only when the queue is full, its deadline"
                    + " would pass while queued, or the queue delay keeps growing: vegas or gradient2 (learnt from"
                    + " latency, Netflix concurrency-limits), fixed (--admission-limit) or off (default: ${DEFAULT-VALUE}).")
    String admission;

    @Option(names = "--admission-limit", paramLabel = "N",
            description = "The initial limit of searches in flight (the limit itself when fixed; default: 64).")
    Integer initialLimit;

    @Option(names = "--admission-min", paramLabel = "N", description = "The adaptive limit's floor (default: 32).")
    Integer minLimit;

    @Option(names = "--admission-max", paramLabel = "N", description = "The adaptive limit's ceiling (default: 256).")
    Integer maxLimit;

    @Option(names = "--admission-queue", paramLabel = "N",
            description = "The most searches that may wait over the limit; the queue holds about one per open HTTP"
                    + " connection, at least " + AdmissionSettings.QUEUE_FLOOR + ", never more than N. 0: no queue, the"
                    + " excess is refused at once (default: 10000).")
    Integer maxQueued;

    @Option(names = "--batch-in-flight", paramLabel = "N",
            defaultValue = "" + BatchAdmissionSettings.DEFAULT_MAX_IN_FLIGHT,
            description = "The most batch sub-requests (priority=batch) the root lets one leaf hold at once; the limit is"
                    + " halved while the interactive p99 rises and regrows after. 0 turns batch admission off: batch"
                    + " work goes out as it comes (default: ${DEFAULT-VALUE}).")
    int batchInFlight;

    @Option(names = "--admin-token", paramLabel = "TOKEN", defaultValue = "${env:HEDGEROW_ADMIN_TOKEN}",
            description = "The token /admin requests must carry as 'Authorization: Bearer TOKEN' (at least "
                    + HttpSettings.MIN_TOKEN_CHARS + " characters; default: $HEDGEROW_ADMIN_TOKEN; 'local' and 'demo'"
                    + " generate one when neither is set, 'root' then closes /admin).")
    String adminToken;

    @Option(names = "--write-token", paramLabel = "TOKEN", defaultValue = "${env:HEDGEROW_WRITE_TOKEN}",
            description = "The token POST, PUT and DELETE on /documents must carry as 'Authorization: Bearer TOKEN' (at"
                    + " least " + HttpSettings.MIN_TOKEN_CHARS + " characters; default: $HEDGEROW_WRITE_TOKEN; 'local' and"
                    + " 'demo' generate one when neither is set, 'root' then takes writes without a token).")
    String writeToken;

    AdmissionSettings toAdmission() {
        AdmissionSettings defaults = AdmissionSettings.defaults();
        AdmissionSettings.Algorithm algorithm = AdmissionSettings.Algorithm.parse(admission);
        int initial = initialLimit != null ? initialLimit : defaults.initialLimit();
        int min = minLimit != null ? minLimit : Math.min(defaults.minLimit(), initial);
        int max = maxLimit != null ? maxLimit : Math.max(defaults.maxLimit(), initial);
        if (algorithm == AdmissionSettings.Algorithm.FIXED) {
            min = Math.min(min, initial);
            max = Math.max(max, initial);
        }
        if (maxQueued != null && maxQueued < 0) {
            throw new IllegalArgumentException("--admission-queue: " + maxQueued + " (expected: >= 0; 0 for no queue)");
        }
        return defaults.withAlgorithm(algorithm).withLimits(initial, min, max)
                .withMaxQueued(maxQueued != null ? maxQueued : defaults.maxQueued());
    }

    /** @throws IllegalArgumentException when --batch-in-flight is negative */
    BatchAdmissionSettings toBatchAdmission() {
        if (batchInFlight < 0) {
            throw new IllegalArgumentException("--batch-in-flight: " + batchInFlight + " (expected: >= 0; 0 for off)");
        }
        return BatchAdmissionSettings.defaults().withMaxInFlight(batchInFlight);
    }

    /** The write token given, or null ({@code root}: writes need none; {@code local}: it generates one). */
    String writeToken() {
        return writeToken == null || writeToken.isEmpty() ? null : writeToken;
    }

    /** The admin token given, or null (then {@code local} generates one). */
    String adminToken() {
        return adminToken == null || adminToken.isEmpty() ? null : adminToken;
    }
}
