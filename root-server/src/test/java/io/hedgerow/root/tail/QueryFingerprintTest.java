package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.search.BadQueryException;
import io.hedgerow.root.cluster.ServedIndex;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.lucene.search.Query;
import org.junit.jupiter.api.Test;

/**
 * The fingerprint is the query the leaves run: spellings that parse to one query share it, queries
 * that parse differently never do. Parsed as the root parses for an index shaped like Europarl
 * (text fields {@code title} and {@code body}, the default fields; a date field {@code date}; a keyword field {@code lang}),
 * through {@link ServedIndex#parse}, the leaves' own parser.
 *
 * <p>The two property tests draw random queries from a small grammar (terms, phrases, prefixes,
 * fuzzy terms, date ranges, groups joined by AND or OR, NOT, boosts), seeded; the seed is printed,
 * and {@code -Dtest.seed=...} reruns one.
 */
class QueryFingerprintTest {
    private static final IndexManifest MANIFEST = new IndexManifest(IndexManifest.FORMAT, "europarl-like", 1,
            IndexConfig.europarl(), List.of("title", "date", "body"), 1, 0, List.of(0L), "2026-01-01T00:00:00Z");
    private static final ServedIndex INDEX = new ServedIndex("europarl-like", 1, MANIFEST);
    private static final String[] WORDS = {"vote", "parliament", "fisheries", "council", "budget", "treaty", "euro",
            "KILLME", "human", "rights"};
    private static final String[] TEXT_FIELDS = {"", "", "title:", "body:"};
    /** The characters the classic query syntax skips between tokens. */
    private static final String[] WHITESPACE = {" ", "\t", "\n", "\r", "\u3000"};
    private static final int ROUNDS = 1_000;

    private final long seed = Long.getLong("test.seed", System.nanoTime());

    private static QueryFingerprint fp(String query) {
        try {
            return QueryFingerprint.of(INDEX.parse(query));
        } catch (BadQueryException e) {
            throw new IllegalArgumentException("query <" + query + ">: " + e.getMessage(), e);
        }
    }

    private static Query parse(String query) throws BadQueryException {
        return INDEX.parse(query);
    }

    // ------------------------------------------------------------------ the two cases

    @Test
    void aTermTheAnalyzerSplitsIsNotTwoClauses() {
        // U+2003 is no whitespace to the query syntax: one title term, split by the analyzer into
        // title:vote title:parliament. The space makes parliament a second clause on every default field.
        QueryFingerprint emSpace = fp("title:vote\u2003parliament");
        QueryFingerprint space = fp("title:vote parliament");
        assertThat(emSpace).isNotEqualTo(space);
        assertThat(emSpace.text()).isNotEqualTo(space.text());

        Blocklist blocklist = new Blocklist(TailSettings.defaults(), new ManualTicker());
        blocklist.block(space, Blocklist.Reason.CANARY_CONNECTION_LOST, "test");
        assertThat(blocklist.isBlocked(emSpace)).as("one query's entry does not refuse the other").isFalse();
    }

    @Test
    void aQueryOfDeathIsOneQueryInEitherOrder() {
        QueryFingerprint first = fp("fisheries KILLME");
        QueryFingerprint second = fp("KILLME fisheries");
        assertThat(first).isEqualTo(second).hasSameHashCodeAs(second);
        assertThat(first.id()).isEqualTo(second.id()).matches("[0-9a-f]{16}");
        assertThat(first.text()).as("rendered alike, the clauses sorted").isEqualTo(second.text());
        assertThat(fp("killme   fisheries")).as("the analyzer folds case").isEqualTo(first);
    }

    // ------------------------------------------------------------------ what is and is not the same query

    @Test
    void spellingsThatParseAlikeShareAFingerprint() {
        QueryFingerprint plain = fp("vote AND european");
        assertThat(fp("  european && vote ")).isEqualTo(plain);
        assertThat(fp("european\tAND\nvote")).isEqualTo(plain);
        assertThat(fp("(european) AND (vote)")).isEqualTo(plain);
        assertThat(fp("Vote AND EUROPEAN")).isEqualTo(plain);
        assertThat(fp("title:(a b)")).isEqualTo(fp("title:(b a)"));
        assertThat(fp("+vote -budget")).isEqualTo(fp("-budget +vote"));
        assertThat(fp("vote AND NOT budget")).isEqualTo(fp("vote && !budget"));
    }

    @Test
    void queriesThatParseDifferentlyDoNot() {
        assertThat(fp("rock and roll")).as("lower-case 'and' is a term").isNotEqualTo(fp("rock AND roll"));
        assertThat(fp("b OR a OR b")).as("a repeated clause weighs twice").isNotEqualTo(fp("a OR b"));
        assertThat(fp("lang:ABC")).as("a keyword field keeps case").isNotEqualTo(fp("lang:abc"));
        assertThat(fp("vote AND budget OR euro")).isNotEqualTo(fp("vote OR budget AND euro"));
        assertThat(fp("vote^2")).isNotEqualTo(fp("vote"));
        assertThat(fp("\"human rights\"")).isNotEqualTo(fp("\"rights human\""));
    }

    @Test
    void aQueryThatDoesNotParseHasNoFingerprint() {
        assertThatThrownBy(() -> parse("title:(foo")).isInstanceOf(BadQueryException.class)
                .hasMessageContaining("Cannot parse 'title:(foo'");
        assertThatThrownBy(() -> parse(" \t ")).isInstanceOf(BadQueryException.class).hasMessage("empty query");
    }

    @Test
    void equalQueriesRenderAlikeAndTheKeyIsTheQueryNotTheText() {
        QueryFingerprint a = fp("vote OR (budget AND euro)");
        QueryFingerprint b = fp("(euro && budget) || vote");
        assertThat(a.text()).isEqualTo(b.text());
        assertThat(a.query()).isEqualTo(b.query());
        // A keyword term holding a space prints like two terms of that field, yet is another query.
        QueryFingerprint oneTerm = fp("lang:\"a b\"");
        assertThat(oneTerm).isNotEqualTo(fp("lang:a lang:b"));
    }

    // ------------------------------------------------------------------ properties

    @Test
    void randomRespellingsOfAQueryShareItsFingerprint() throws BadQueryException {
        System.out.println("QueryFingerprintTest respellings seed: " + seed + " (rerun with -Dtest.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int round = 0; round < ROUNDS; round++) {
            Node query = Node.random(random, 3);
            String one = query.spell(new Random(random.nextLong()));
            String other = query.spell(new Random(random.nextLong()));
            assertThat(fp(other)).as("<%s> and <%s>, seed %d", one, other, seed).isEqualTo(fp(one))
                    .hasSameHashCodeAs(fp(one));
            assertThat(fp(other).id()).isEqualTo(fp(one).id());
        }
    }

    @Test
    void randomQueriesThatParseDifferentlyNeverShareAFingerprint() throws BadQueryException {
        System.out.println("QueryFingerprintTest changes seed: " + seed + " (rerun with -Dtest.seed=" + seed + ")");
        Random random = new Random(seed);
        Blocklist blocklist = new Blocklist(TailSettings.defaults(), new ManualTicker());
        int different = 0;
        for (int round = 0; round < ROUNDS; round++) {
            Node query = Node.random(random, 3);
            Node changed = query.changed(random);
            String one = query.spell(new Random(random.nextLong()));
            String other = changed.spell(new Random(random.nextLong()));
            boolean sameQuery = parse(one).equals(parse(other));
            assertThat(fp(one).equals(fp(other))).as("<%s> and <%s>, seed %d", one, other, seed).isEqualTo(sameQuery);
            if (!sameQuery) {
                different++;
                blocklist.block(fp(one), Blocklist.Reason.CANARY_TIMED_OUT, "test");
                assertThat(blocklist.isBlocked(fp(other))).as("<%s> blocks <%s>, seed %d", one, other, seed).isFalse();
                blocklist.remove(fp(one));
            }
        }
        assertThat(different).as("changes that changed the query, seed %d", seed).isGreaterThan(ROUNDS * 3 / 4);
    }

    // ------------------------------------------------------------------ the grammar

    /** A query in the classic syntax, which can be spelt many ways and changed in one place. */
    private sealed interface Node permits Leaf, Group, SpacedTerm {
        static Node random(Random random, int depth) {
            if (depth == 0 || random.nextInt(3) == 0) {
                return Leaf.random(random);
            }
            int size = 2 + random.nextInt(3);
            List<Node> children = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                children.add(random(random, depth - 1));
            }
            boolean and = random.nextBoolean();
            List<Boolean> negated = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                // NOT only inside AND groups, and never on every clause (a query of negations matches nothing)
                negated.add(and && i > 0 && random.nextInt(4) == 0);
            }
            float boost = random.nextInt(5) == 0 ? 2 + random.nextInt(3) : 0;
            return new Group(and, children, negated, boost);
        }

        /** One spelling: whitespace, operator synonyms, clause order, case and redundant parentheses at random. */
        String spell(Random random);

        /** The same query but for one change that may change what it means. */
        Node changed(Random random);
    }

    /**
     * One clause: a term, a phrase, a prefix, a fuzzy term or a date range.
     *
     * @param kind  0 term, 1 phrase, 2 prefix, 3 fuzzy, 4 date range
     * @param field {@code ""} or {@code title:} or {@code body:} (or {@code date:} for a range)
     * @param words the words (two for a phrase or a range)
     */
    private record Leaf(int kind, String field, List<String> words) implements Node {
        static Leaf random(Random random) {
            int kind = random.nextInt(10) < 6 ? 0 : 1 + random.nextInt(4);
            if (kind == 4) {
                int from = 1990 + random.nextInt(10);
                return new Leaf(4, "date:", List.of(from + "-01-01", (from + 1 + random.nextInt(5)) + "-06-30"));
            }
            String field = TEXT_FIELDS[random.nextInt(TEXT_FIELDS.length)];
            List<String> words = kind == 1 ? List.of(word(random), word(random)) : List.of(word(random));
            return new Leaf(kind, field, words);
        }

        private static String word(Random random) {
            return WORDS[random.nextInt(WORDS.length)];
        }

        @Override
        public String spell(Random random) {
            String body = switch (kind) {
                case 0 -> cased(words.get(0), random);
                case 1 -> "\"" + cased(words.get(0), random) + " " + cased(words.get(1), random) + "\"";
                case 2 -> words.get(0).toLowerCase().substring(0, 3) + "*";
                case 3 -> words.get(0).toLowerCase() + "~1";
                default -> "[" + words.get(0) + " TO " + words.get(1) + "]";
            };
            String clause = field + body;
            return random.nextInt(6) == 0 ? "(" + gap(random, 0) + clause + gap(random, 0) + ")" : clause;
        }

        @Override
        public Node changed(Random random) {
            return switch (random.nextInt(3)) {
                case 0 -> kind == 4 ? new Leaf(4, field, List.of(words.get(0), "2001-12-31"))
                        : new Leaf(kind, field, words.stream().map(w -> WORDS[(indexOf(w) + 1) % WORDS.length]).toList());
                case 1 -> kind == 4 ? new Leaf(0, "", List.of(words.get(0).substring(0, 4)))
                        : new Leaf(kind, field.equals("title:") ? "body:" : "title:", words);
                default -> kind == 0 && !field.isEmpty() ? new SpacedTerm(field, words.get(0), word(random))
                        : new Leaf(kind == 3 ? 0 : 3, kind == 4 ? "" : field, List.of(words.get(0)));
            };
        }

        private static int indexOf(String word) {
            for (int i = 0; i < WORDS.length; i++) {
                if (WORDS[i].equals(word)) {
                    return i;
                }
            }
            return 0;
        }

        /** Text fields fold case; the query syntax does not care. */
        private static String cased(String word, Random random) {
            return switch (random.nextInt(3)) {
                case 0 -> word.toLowerCase();
                case 1 -> word.toUpperCase();
                default -> word;
            };
        }
    }

    /** A group of clauses joined all by AND or all by OR, optionally boosted. */
    private record Group(boolean and, List<Node> children, List<Boolean> negated, float boost) implements Node {
        @Override
        public String spell(Random random) {
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < children.size(); i++) {
                order.add(i);
            }
            java.util.Collections.shuffle(order, random);
            // A negated clause first would read "NOT a AND b": the same query, kept for variety.
            StringBuilder out = new StringBuilder("(").append(gap(random, 0));
            for (int i = 0; i < order.size(); i++) {
                int child = order.get(i);
                if (i > 0) {
                    out.append(gap(random, 1)).append(operator(random)).append(gap(random, 1));
                }
                if (negated.get(child)) {
                    out.append(random.nextBoolean() ? "NOT" + gap(random, 1) : "!");
                }
                out.append(children.get(child).spell(random));
            }
            out.append(gap(random, 0)).append(")");
            if (boost > 0) {
                out.append("^").append((int) boost);
            }
            return out.toString();
        }

        private String operator(Random random) {
            return and ? (random.nextBoolean() ? "AND" : "&&") : (random.nextBoolean() ? "OR" : "||");
        }

        @Override
        public Node changed(Random random) {
            return switch (random.nextInt(4)) {
                case 0 -> new Group(!and, children, and ? negated.stream().map(n -> false).toList() : negated, boost);
                case 1 -> new Group(and, children, negated, boost == 0 ? 3 : 0);
                case 2 -> {
                    // a clause twice: a SHOULD or MUST clause counts twice
                    List<Node> more = new ArrayList<>(children);
                    List<Boolean> moreNegated = new ArrayList<>(negated);
                    more.add(children.get(0));
                    moreNegated.add(negated.get(0));
                    yield new Group(and, more, moreNegated, boost);
                }
                default -> {
                    int which = random.nextInt(children.size());
                    List<Node> changedChildren = new ArrayList<>(children);
                    changedChildren.set(which, children.get(which).changed(random));
                    yield new Group(and, changedChildren, negated, boost);
                }
            };
        }
    }

    /**
     * A fielded term whose two words are joined by an em space (U+2003): one token to the query
     * syntax, two terms of that field to the analyzer. Changed from a plain term, it is another query.
     */
    private record SpacedTerm(String field, String first, String second) implements Node {
        @Override
        public String spell(Random random) {
            return field + first + "\u2003" + second;
        }

        @Override
        public Node changed(Random random) {
            return this;
        }
    }

    /** Whitespace the syntax skips: at least {@code min} characters of it. */
    private static String gap(Random random, int min) {
        StringBuilder gap = new StringBuilder();
        int count = min + random.nextInt(3);
        for (int i = 0; i < count; i++) {
            gap.append(WHITESPACE[random.nextInt(WHITESPACE.length)]);
        }
        return gap.toString();
    }
}
