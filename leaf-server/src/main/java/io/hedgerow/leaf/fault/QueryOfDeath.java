package io.hedgerow.leaf.fault;

import java.io.PrintStream;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * A "query of death" for tests and demos: a crash bug that a query can trigger. A leaf started with
 * {@code --fault-injection --query-of-death TOKEN} exits abruptly when a search or fetch whose raw query
 * text contains {@code TOKEN} (case-sensitive substring) reaches it, as a bug in its query parser
 * would: one line on stderr naming the token and the request, then {@link Runtime#halt} with
 * {@link #EXIT_CODE}, so no shutdown hook runs, nothing is closed gracefully and every connection
 * simply drops. It is what a root's canary requests exist to contain.
 *
 * <p><b>Assumptions and guarantees.</b> Immutable and thread-safe. {@link #check} runs on the event
 * loop for every search and fetch; with no token (the default) it costs one null check.
 */
public final class QueryOfDeath {
    /** The leaf's exit status when a query of death kills it (sysexits' EX_SOFTWARE: an internal software error). */
    public static final int EXIT_CODE = 70;
    /** No token: no query kills the leaf. */
    public static final QueryOfDeath NONE = new QueryOfDeath(null, System.err, status -> { });

    private final String token;
    private final PrintStream log;
    private final IntConsumer halt;

    /**
     * @param token what a query must contain to kill the leaf; null for none
     * @param log   where the one line goes before the leaf halts
     * @param halt  ends the process with the given status (a test records it instead)
     */
    public QueryOfDeath(String token, PrintStream log, IntConsumer halt) {
        if (token != null && token.isEmpty()) {
            throw new IllegalArgumentException("token: '' (expected: a non-empty string, or none; an empty token "
                    + "would be in every query)");
        }
        this.token = token;
        this.log = Objects.requireNonNull(log, "log");
        this.halt = Objects.requireNonNull(halt, "halt");
    }

    /** A query of death that really ends this JVM, logging to stderr; {@link #NONE} for a null token. */
    public static QueryOfDeath halting(String token) {
        return token == null ? NONE : new QueryOfDeath(token, System.err, Runtime.getRuntime()::halt);
    }

    /** The token, or null when none is set. */
    public String token() {
        return token;
    }

    /**
     * Halts the process when {@code query} contains the token; returns otherwise (and also after a
     * halt that did not end the process, as a test's does).
     *
     * @param kind      what the request is, for the log line: {@code search} or {@code fetch}
     * @param requestId the request's id, for the log line
     * @return whether the query was a query of death
     */
    public boolean check(String query, String kind, long requestId) {
        if (token == null || !query.contains(token)) {
            return false;
        }
        log.println("query of death: " + kind + " request " + requestId + " contains the token '" + token
                + "'; the leaf halts with status " + EXIT_CODE);
        log.flush();
        halt.accept(EXIT_CODE);
        return true;
    }
}
