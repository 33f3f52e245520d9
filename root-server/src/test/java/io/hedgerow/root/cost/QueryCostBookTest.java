package io.hedgerow.root.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.QueryCost;
import io.hedgerow.root.tail.IndexQueryParser;
import io.hedgerow.root.tail.QueryFingerprint;
import org.junit.jupiter.api.Test;

/** What the root learns of a query's cost: per parsed query, the highest estimate, bounded. */
class QueryCostBookTest {
    private final IndexQueryParser parser = IndexQueryParser.standard();

    @Test
    void learnsTheHighestEstimatePerQueryWhateverItsSpelling() throws Exception {
        QueryCostBook book = new QueryCostBook(10);
        assertThat(book.hint(fingerprint("european parliament"))).isZero();

        book.learn(fingerprint("european parliament"), cost(1200, 300_000));
        book.learn(fingerprint("parliament   european"), cost(5000, 900_000));
        book.learn(fingerprint("european parliament"), cost(800, 100_000));

        assertThat(book.hint(fingerprint("parliament european"))).isEqualTo(5000);
        assertThat(book.lookup(fingerprint("european parliament")).answers()).isEqualTo(3);
        assertThat(book.hint(fingerprint("european"))).isZero();
    }

    @Test
    void answersWithoutACostTeachNothing() throws Exception {
        QueryCostBook book = new QueryCostBook(10);
        book.learn(fingerprint("a"), QueryCost.getDefaultInstance());
        book.learn(null, cost(10, 10));
        assertThat(book.size()).isZero();
    }

    @Test
    void forgetsTheLeastRecentlyUsedPastItsSize() throws Exception {
        QueryCostBook book = new QueryCostBook(2);
        book.learn(fingerprint("one"), cost(1, 1));
        book.learn(fingerprint("two"), cost(2, 2));
        assertThat(book.hint(fingerprint("one"))).isEqualTo(1); // used: "two" is now the eldest
        book.learn(fingerprint("three"), cost(3, 3));

        assertThat(book.hint(fingerprint("two"))).isZero();
        assertThat(book.hint(fingerprint("one"))).isEqualTo(1);
        assertThat(book.hint(fingerprint("three"))).isEqualTo(3);
    }

    private QueryFingerprint fingerprint(String query) throws Exception {
        return QueryFingerprint.of(parser.parse(query));
    }

    private static QueryCost cost(long estimate, long cpuNanos) {
        return QueryCost.newBuilder().setEstimate(estimate).setCpuNanos(cpuNanos).setSlices(1).build();
    }
}
