package io.hedgerow.root.tail;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.DisjunctionMaxQuery;
import org.apache.lucene.search.Query;

/**
 * A query as the leaves run it: the key of the blocklist, the known-safe set and (with the
 * result-shaping settings, {@link CacheKey}) the result cache.
 *
 * <p>The key is the parsed Lucene {@link Query} itself, parsed at the root with the index's own
 * analyzer and query parser, as every leaf parses it ({@link TailGuard#fingerprint}). Two
 * fingerprints are equal exactly when their queries are ({@link Query#equals}), so:
 * <ul>
 * <li>every spelling that parses to one query shares one fingerprint: whitespace of any kind the
 *     query syntax skips, {@code &&} for {@code AND}, upper or lower case where the analyzer folds
 *     it, redundant parentheses, and the order of a boolean query's clauses, which Lucene's
 *     equality compares as a multiset (so {@code fisheries KILLME} and {@code KILLME fisheries} are
 *     one query of death);</li>
 * <li>two queries that parse differently never share one, even when their texts look alike
 *     ({@code title:vote<U+2003>parliament}, one term of the title field that the analyzer splits,
 *     and {@code title:vote parliament}, whose second term searches every default field).</li>
 * </ul>
 * The hash code is the query's; {@link #text()} and {@link #id()} are for people and URLs only.
 *
 * <p>{@link #text()} is a canonical rendering: the query's own {@code toString()}, except that the
 * clauses of a boolean query (and the disjuncts of a disjunction-max query) are rendered sorted,
 * so equal queries render alike however their clauses were ordered. Two unequal queries may still
 * render alike (a term holding a space prints like two terms), which is why the text is not the key.
 *
 * <p>Thread-safe, as Lucene queries are; its text is rendered once it is first asked for.
 */
public final class QueryFingerprint {
    private final Query query;
    /** Rendered on first use: most fingerprints are only looked up, never shown. Racy but idempotent. */
    private String text;

    private QueryFingerprint(Query query) {
        this.query = query;
    }

    /** The fingerprint of a parsed query. */
    public static QueryFingerprint of(Query parsed) {
        return new QueryFingerprint(Objects.requireNonNull(parsed, "parsed"));
    }

    /** The parsed query: the key. */
    public Query query() {
        return query;
    }

    /** The query rendered canonically, for listings and messages. */
    public String text() {
        String rendered = text;
        if (rendered == null) {
            rendered = render(query);
            text = rendered; // a String is immutable and safely published: a race renders twice, alike
        }
        return rendered;
    }

    /**
     * A 16-hex-digit id (64-bit FNV-1a of {@link #text()}), short enough for a URL or a log line.
     * Equal fingerprints have equal ids; two unequal ones could share one (see the class comment).
     */
    public String id() {
        String text = text();
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            hash = (hash ^ (c & 0xff)) * 0x100000001b3L;
            hash = (hash ^ (c >>> 8)) * 0x100000001b3L;
        }
        return String.format("%016x", hash);
    }

    /** A rough size of this fingerprint on the heap, for the cache's weigher: the query's objects and the text. */
    long estimatedBytes() {
        return 96 + 6L * text().length();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof QueryFingerprint fingerprint && query.equals(fingerprint.query);
    }

    @Override
    public int hashCode() {
        return query.hashCode();
    }

    @Override
    public String toString() {
        return text();
    }

    /** {@code toString()}, with the clauses of boolean and disjunction-max queries in sorted order. */
    static String render(Query query) {
        if (query instanceof BooleanQuery bool) {
            List<String> clauses = new ArrayList<>();
            // Lucene compares FILTER and MUST_NOT clauses as sets, SHOULD and MUST as multisets.
            TreeSet<String> unique = new TreeSet<>();
            for (BooleanClause clause : bool.clauses()) {
                String rendered = prefix(clause.occur()) + nested(clause.query());
                if (clause.occur() == BooleanClause.Occur.FILTER || clause.occur() == BooleanClause.Occur.MUST_NOT) {
                    unique.add(rendered);
                } else {
                    clauses.add(rendered);
                }
            }
            clauses.addAll(unique);
            clauses.sort(null);
            String joined = String.join(" ", clauses);
            return bool.getMinimumNumberShouldMatch() > 0 ? "(" + joined + ")~" + bool.getMinimumNumberShouldMatch()
                    : joined;
        }
        if (query instanceof BoostQuery boost) {
            return "(" + render(boost.getQuery()) + ")^" + boost.getBoost();
        }
        if (query instanceof DisjunctionMaxQuery max) {
            List<String> disjuncts = new ArrayList<>();
            for (Query disjunct : max.getDisjuncts()) {
                disjuncts.add(render(disjunct));
            }
            disjuncts.sort(null);
            return "(" + String.join(" | ", disjuncts) + ")~" + max.getTieBreakerMultiplier();
        }
        return query.toString();
    }

    private static String nested(Query query) {
        return query instanceof BooleanQuery bool && bool.getMinimumNumberShouldMatch() == 0 ? "(" + render(query) + ")"
                : render(query);
    }

    private static String prefix(BooleanClause.Occur occur) {
        return switch (occur) {
            case MUST -> "+";
            case FILTER -> "#";
            case MUST_NOT -> "-";
            case SHOULD -> "";
        };
    }
}
