package io.hedgerow.root.tail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A query's text normalized so that spellings the leaves parse to the same query share one
 * fingerprint: the key of the blocklist, the known-safe set and (with the result-shaping settings,
 * {@link CacheKey}) the result cache. Two queries with one fingerprint parse to the same Lucene
 * query (up to the order of the clauses of one boolean query); two queries with different
 * fingerprints may still be the same query, which costs a cache miss or a second canary, never a
 * wrong answer.
 *
 * <p>What is normalized, exactly, in Lucene's classic query syntax (the leaves' parser, default
 * operator OR):
 * <ol>
 * <li><b>Whitespace</b> outside quoted phrases and regular expressions: leading and trailing
 *     whitespace is removed, every run of whitespace becomes one space, and whitespace directly
 *     after {@code (} or directly before {@code )} is removed. Inside {@code "..."} and {@code
 *     /.../}, and after a backslash, every character is kept as written (an analyzer may treat
 *     two spaces in a phrase like one, but a keyword field does not).</li>
 * <li><b>Operator spelling</b>: the stand-alone tokens {@code &&}, {@code ||} and {@code !} become
 *     {@code AND}, {@code OR} and {@code NOT}, their synonyms in the classic grammar. The lower-case
 *     words {@code and}, {@code or} and {@code not} are left alone: to the classic parser they are
 *     terms, not operators, so upper-casing them would change the query.</li>
 * <li><b>Clause order of a plain list</b>: when the whole query is two or more simple clauses
 *     joined all by {@code AND}, or all by {@code OR}, or all by whitespace with at most one of
 *     them bare (without a field and without {@code +} or {@code -}), the clauses are sorted (by
 *     {@link String#compareTo}; duplicates kept, as they weigh twice). The limit on bare clauses is
 *     there because the classic parser (which no longer splits on whitespace) hands each run of
 *     adjacent bare terms to the analyzer as one text: a keyword field would see {@code "b a"} as
 *     one token, and a term the analyzer splits ({@code e-mail}) nests differently, so
 *     {@code european parliament} is not reordered while {@code european AND parliament} is. A simple clause is a term
 *     of letters, digits, {@code _} and {@code .} (and, after its first character, {@code -} and
 *     {@code @}), optionally after a field name of the same characters and a colon, and, in a
 *     whitespace list only, optionally after one {@code +} or {@code -}. Such a list parses to one
 *     boolean query whose clauses carry their own occurrence, so their order changes neither the
 *     documents matched nor the score formula (only the order in which clause scores are added,
 *     which may move a score in its last bit). Lists that mix separators are not reordered, as the
 *     classic parser gives {@code a AND b OR c} and {@code a OR b AND c} different meanings, nor
 *     are queries with parentheses, phrases, wildcards, fuzziness, boosts, ranges or escapes.</li>
 * </ol>
 * Nothing else changes: the case of terms and field names is kept (a keyword field is
 * case-sensitive), and so are redundant parentheses and repeated clauses.
 *
 * <p>Immutable; {@link #of} makes one pass over the text plus a sort of the clauses of a plain
 * list, so it is cheap enough to run once per request on an event loop.
 *
 * @param text the normalized query text
 */
public record QueryFingerprint(String text) {

    public QueryFingerprint {
        Objects.requireNonNull(text, "text");
        if (text.isEmpty()) {
            throw new IllegalArgumentException("text: empty (expected: a normalized query)");
        }
    }

    /**
     * The fingerprint of a query in Lucene's classic syntax.
     *
     * @throws IllegalArgumentException when the query is empty or only whitespace
     */
    public static QueryFingerprint of(String luceneQuery) {
        Objects.requireNonNull(luceneQuery, "luceneQuery");
        List<String> tokens = tokens(luceneQuery);
        if (tokens.isEmpty()) {
            throw new IllegalArgumentException("query: empty (expected: a query in Lucene syntax)");
        }
        String sorted = sortedPlainList(tokens);
        return new QueryFingerprint(sorted != null ? sorted : join(tokens));
    }

    /** A 16-hex-digit id of the fingerprint (64-bit FNV-1a of its text), short enough for a URL or a log line. */
    public String id() {
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            hash = (hash ^ (c & 0xff)) * 0x100000001b3L;
            hash = (hash ^ (c >>> 8)) * 0x100000001b3L;
        }
        return String.format("%016x", hash);
    }

    /** A rough size of this fingerprint on the heap, for the cache's weigher. */
    long estimatedBytes() {
        return 56 + 2L * text.length();
    }

    /** Splits at whitespace outside phrases, regular expressions and escapes; maps operator synonyms. */
    private static List<String> tokens(String query) {
        List<String> tokens = new ArrayList<>();
        StringBuilder token = new StringBuilder();
        int length = query.length();
        int i = 0;
        while (i < length) {
            char c = query.charAt(i);
            if (Character.isWhitespace(c)) {
                flush(token, tokens);
                i++;
            } else if (c == '\\') {
                token.append(c);
                if (i + 1 < length) {
                    token.append(query.charAt(i + 1));
                }
                i += 2;
            } else if (c == '"' || c == '/') {
                i = appendVerbatim(query, i, c, token);
            } else {
                token.append(c);
                i++;
            }
        }
        flush(token, tokens);
        return tokens;
    }

    /** Appends from the opening {@code quote} to its unescaped closing twin (or the end), as written. */
    private static int appendVerbatim(String query, int start, char quote, StringBuilder token) {
        token.append(quote);
        int i = start + 1;
        while (i < query.length()) {
            char c = query.charAt(i++);
            token.append(c);
            if (c == '\\' && i < query.length()) {
                token.append(query.charAt(i++));
            } else if (c == quote) {
                break;
            }
        }
        return i;
    }

    private static void flush(StringBuilder token, List<String> tokens) {
        if (token.isEmpty()) {
            return;
        }
        String text = token.toString();
        tokens.add(switch (text) {
            case "&&" -> "AND";
            case "||" -> "OR";
            case "!" -> "NOT";
            default -> text;
        });
        token.setLength(0);
    }

    private static String join(List<String> tokens) {
        StringBuilder out = new StringBuilder();
        String previous = null;
        for (String token : tokens) {
            if (previous != null && !endsWithOpenParenthesis(previous) && token.charAt(0) != ')') {
                out.append(' ');
            }
            out.append(token);
            previous = token;
        }
        return out.toString();
    }

    private static boolean endsWithOpenParenthesis(String token) {
        int last = token.length() - 1;
        if (token.charAt(last) != '(') {
            return false;
        }
        int backslashes = 0;
        for (int i = last - 1; i >= 0 && token.charAt(i) == '\\'; i--) {
            backslashes++;
        }
        return backslashes % 2 == 0;
    }

    /** The clauses of a plain list in sorted order, joined as they were; null when the query is no plain list. */
    private static String sortedPlainList(List<String> tokens) {
        int size = tokens.size();
        if (size < 2) {
            return null;
        }
        String separator = " ";
        int clauses = size;
        if (size >= 3 && (tokens.get(1).equals("AND") || tokens.get(1).equals("OR"))) {
            if (size % 2 == 0) {
                return null; // ends with an operator
            }
            separator = " " + tokens.get(1) + " ";
            for (int i = 1; i < size; i += 2) {
                if (!tokens.get(i).equals(tokens.get(1))) {
                    return null; // mixed operators: order matters to the classic parser
                }
            }
            clauses = (size + 1) / 2;
        }
        boolean whitespaceList = clauses == size;
        String[] list = new String[clauses];
        int bare = 0;
        for (int c = 0; c < clauses; c++) {
            String clause = tokens.get(whitespaceList ? c : 2 * c);
            if (!isSimpleClause(clause, whitespaceList)) {
                return null;
            }
            if (isBare(clause)) {
                bare++;
            }
            list[c] = clause;
        }
        if (whitespaceList && bare > 1) {
            return null; // adjacent bare terms are analyzed together: their grouping would change
        }
        Arrays.sort(list);
        return String.join(separator, list);
    }

    /** No field and no {@code +} or {@code -}: the parser may analyze it together with its bare neighbours. */
    private static boolean isBare(String clause) {
        char first = clause.charAt(0);
        return first != '+' && first != '-' && clause.indexOf(':') < 0;
    }

    private static boolean isSimpleClause(String clause, boolean allowPrefix) {
        switch (clause) {
            case "AND", "OR", "NOT", "TO" -> {
                return false;
            }
            default -> {
            }
        }
        int start = 0;
        if (allowPrefix && (clause.charAt(0) == '+' || clause.charAt(0) == '-')) {
            start = 1;
        }
        int colon = clause.indexOf(':', start);
        if (colon >= 0) {
            return isWord(clause, start, colon) && isWord(clause, colon + 1, clause.length());
        }
        return isWord(clause, start, clause.length());
    }

    private static boolean isWord(String text, int start, int end) {
        if (start >= end) {
            return false;
        }
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            boolean allowed = Character.isLetterOrDigit(c) || c == '_' || c == '.'
                    || (i > start && (c == '-' || c == '@'));
            if (!allowed) {
                return false;
            }
        }
        return true;
    }
}
