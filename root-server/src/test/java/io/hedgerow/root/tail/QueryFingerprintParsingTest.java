package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.Query;
import org.junit.jupiter.api.Test;

/**
 * The fingerprint's promise checked against the leaves' own parser: a query and its fingerprint's
 * text parse to equal Lucene queries ({@code BooleanQuery} equality ignores clause order), for
 * random plain lists that get sorted and random mixed ones that must not be. Seeded; the seed is
 * printed so a failure can be rerun with {@code -Dtest.seed=...}.
 */
class QueryFingerprintParsingTest {
    private static final String[] TERMS = {"alpha", "Beta", "c3", "e-mail", "user@example.com", "x_y", "v1.2", "and"};
    private static final String[] FIELDS = {"", "", "title:", "body:"};
    private static final String[] GAPS = {" ", "  ", "\t", " \n "};

    private final long seed = Long.getLong("test.seed", System.nanoTime());
    private final Random random = new Random(seed);

    private static Query parse(String query) throws ParseException {
        QueryParser parser = new QueryParser("body", new StandardAnalyzer());
        parser.setDefaultOperator(QueryParser.Operator.OR);
        return parser.parse(query);
    }

    private String pick(String[] options) {
        return options[random.nextInt(options.length)];
    }

    private String clause(boolean prefixes) {
        String prefix = prefixes ? pick(new String[] {"", "", "+", "-"}) : "";
        return prefix + pick(FIELDS) + pick(TERMS);
    }

    @Test
    void aQueryAndItsFingerprintParseToEqualQueries() throws ParseException {
        System.out.println("QueryFingerprintParsingTest seed: " + seed + " (rerun with -Dtest.seed=" + seed + ")");
        int sorted = 0;
        for (int round = 0; round < 2_000; round++) {
            int clauses = 2 + random.nextInt(5);
            String[] operators = {"", "AND", "OR", "&&", "||", "mixed"};
            String operator = pick(operators);
            StringBuilder query = new StringBuilder(pick(GAPS));
            for (int c = 0; c < clauses; c++) {
                if (c > 0) {
                    query.append(pick(GAPS));
                    String op = operator.equals("mixed") ? pick(new String[] {"", "AND", "OR", "&&", "||"}) : operator;
                    if (!op.isEmpty()) {
                        query.append(op).append(pick(GAPS));
                    }
                }
                query.append(clause(operator.isEmpty()));
            }
            query.append(pick(GAPS));
            String text = query.toString();
            String fingerprint = QueryFingerprint.of(text).text();
            if (!fingerprint.equals(text.trim().replaceAll("\\s+", " ").replace("&&", "AND").replace("||", "OR"))) {
                sorted++;
            }
            assertThat(parse(fingerprint)).as("query <%s>, fingerprint <%s>, seed %d", text, fingerprint, seed)
                    .isEqualTo(parse(text));
        }
        assertThat(sorted).as("rounds whose clauses were reordered").isGreaterThan(100);
    }
}
