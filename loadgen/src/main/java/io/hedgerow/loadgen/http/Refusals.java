package io.hedgerow.loadgen.http;

import java.util.Set;

/**
 * Which error answers are refusals: the server turned the request away at once, without running
 * it, as load shedding does, rather than failing it. A Hedgerow root refuses with a 503 whose body
 * says {@code overloaded} (admission control, with {@code Retry-After}) or {@code shutting_down}:
 * exactly what it times as its own {@code refused} outcome ({@code /metrics/latency}), so the
 * generator's and the root's refusal figures count the same requests. Its other 503s
 * ({@code unavailable}, {@code blocklisted}, {@code dangerous_query}) ran the search, or judged
 * the query, and are errors. A server that names no code but asks for a {@code Retry-After} with a
 * 503 or 429 is refusing too (HTTP's meaning of the pair), so other servers' shedding counts alike.
 */
public final class Refusals {
    private static final Set<String> REFUSAL_CODES = Set.of("overloaded", "shutting_down");

    private Refusals() {
    }

    /**
     * @param status     the HTTP status
     * @param errorCode  the body's {@code error} code; null when it had none
     * @param retryAfter the answer carried a {@code Retry-After}
     */
    public static boolean isRefusal(int status, String errorCode, boolean retryAfter) {
        if (status != 503 && status != 429) {
            return false;
        }
        return errorCode == null ? retryAfter : REFUSAL_CODES.contains(errorCode);
    }
}
