package io.hedgerow.root.hedge;

import java.util.Objects;

/**
 * A coarse cost class of a query's shape, so that the hedge delay of a cheap query is not learnt
 * from the latencies of expensive ones (and the reverse): a two-term query that is still out after
 * the p95 of large ORs and prefix queries has long been late.
 *
 * <p>The class is read from the query text alone, before anything runs, by one pass over the
 * classic query syntax without allocating.
 */
public enum RequestClass {
    /** A few plain terms, with or without AND, OR, NOT, +, - and parentheses. */
    CHEAP,
    /**
     * A query that expands or scores positions: a wildcard or prefix ({@code *}, {@code ?}), fuzzy
     * or proximity ({@code ~}), a regular expression ({@code /}), a phrase ({@code "}), a range
     * ({@code [}, <code>{</code>), or more than {@value #MAX_CHEAP_TERMS} terms.
     */
    EXPENSIVE,
    /**
     * A batch query ({@code priority=batch}), whatever its shape. Its latencies include waiting for
     * the root's batch admission, by design, so they are learnt apart: they must not stretch the
     * hedge delays, canary timeouts and cutoffs of interactive queries. Never returned by {@link
     * #of(String)}; the root assigns it.
     */
    BATCH;

    /** The most terms a query may have and still be cheap. */
    public static final int MAX_CHEAP_TERMS = 3;

    /**
     * The class of a query in Lucene's classic syntax. A backslash escapes the next character, as
     * the parser does, so {@code c\+\+} is one cheap term. Field prefixes ({@code title:}),
     * boosts ({@code ^2}) and the operators {@code AND}, {@code OR}, {@code NOT}, {@code &&},
     * {@code ||}, {@code +}, {@code -}, {@code !} are not terms.
     */
    public static RequestClass of(String luceneQuery) {
        Objects.requireNonNull(luceneQuery, "luceneQuery");
        int length = luceneQuery.length();
        int terms = 0;
        int i = 0;
        while (i < length) {
            char c = luceneQuery.charAt(i);
            if (isExpensive(c)) {
                return EXPENSIVE;
            }
            if (isSeparator(c) || isPrefixOperator(c)) {
                // A +, - or ! starts a clause only where a token starts; inside a term it is a letter
                // (e-mail), as in the classic grammar.
                i++;
                continue;
            }
            int start = i;
            while (i < length && !isSeparator(luceneQuery.charAt(i))) {
                char inToken = luceneQuery.charAt(i);
                if (inToken == '\\') {
                    i += 2; // the escaped character is a literal, whatever it is
                    continue;
                }
                if (isExpensive(inToken)) {
                    return EXPENSIVE;
                }
                i++;
            }
            int end = Math.min(i, length);
            if (isTerm(luceneQuery, start, end) && ++terms > MAX_CHEAP_TERMS) {
                return EXPENSIVE;
            }
        }
        return CHEAP;
    }

    private static boolean isTerm(String query, int start, int end) {
        int tokenLength = end - start;
        if (query.charAt(start) == '^') {
            return false; // boost of a group: (a b)^2
        }
        if (query.charAt(end - 1) == ':' && (end - start == 1 || query.charAt(end - 2) != '\\')) {
            return false; // field prefix of a group: title:(a b)
        }
        return switch (tokenLength) {
            case 2 -> !(query.startsWith("OR", start) || query.startsWith("&&", start) || query.startsWith("||", start));
            case 3 -> !(query.startsWith("AND", start) || query.startsWith("NOT", start));
            default -> true;
        };
    }

    private static boolean isExpensive(char c) {
        return switch (c) {
            case '*', '?', '~', '/', '"', '[', '{' -> true;
            default -> false;
        };
    }

    private static boolean isSeparator(char c) {
        return c == '(' || c == ')' || Character.isWhitespace(c);
    }

    private static boolean isPrefixOperator(char c) {
        return c == '+' || c == '-' || c == '!';
    }
}
