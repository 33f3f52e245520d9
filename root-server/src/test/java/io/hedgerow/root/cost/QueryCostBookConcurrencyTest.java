package io.hedgerow.root.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.root.tail.IndexQueryParser;
import io.hedgerow.root.tail.QueryFingerprint;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cost book without a lock on the search path: lessons taught from several threads at once are
 * all kept, and a large book evicts its least recently used sixteenth at a time.
 */
@Timeout(30)
class QueryCostBookConcurrencyTest {
    private final IndexQueryParser parser = IndexQueryParser.standard();

    @Test
    void aLargeBookEvictsItsLeastRecentlyUsedSixteenthAtOnce() throws Exception {
        QueryCostBook book = new QueryCostBook(32);
        List<QueryFingerprint> queries = queries(33);
        for (int i = 0; i < 32; i++) {
            book.learn(queries.get(i), i + 1, 1);
        }
        for (int i = 0; i < 4; i++) {
            assertThat(book.hint(queries.get(i))).isEqualTo(i + 1); // used: the eldest are now 4, 5, 6...
        }
        assertThat(book.size()).isEqualTo(32);

        book.learn(queries.get(32), 33, 1); // 33 > 32: down to 30

        assertThat(book.size()).isEqualTo(30);
        for (int i = 0; i < 33; i++) {
            assertThat(book.hint(queries.get(i))).as("query %d", i).isEqualTo(i >= 4 && i <= 6 ? 0 : i + 1);
        }
    }

    @Test
    void lessonsTaughtAtOnceFromTwoThreadsAreAllKept() throws Exception {
        QueryCostBook book = new QueryCostBook(100);
        List<QueryFingerprint> queries = queries(10);
        int lessonsPerThread = 20_000;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int thread = t;
                done.add(threads.submit(() -> {
                    go.await();
                    for (int i = 0; i < lessonsPerThread; i++) {
                        QueryFingerprint query = queries.get(i % queries.size());
                        book.learn(query, 1 + (i * 7 + thread) % 1000, 10);
                        book.hint(query);
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            threads.shutdownNow();
        }
        long answers = 0;
        for (QueryFingerprint query : queries) {
            answers += book.lookup(query).answers();
            assertThat(book.hint(query)).isGreaterThan(990);
        }
        assertThat(answers).as("every lesson counted once").isEqualTo(2L * lessonsPerThread);
    }

    private List<QueryFingerprint> queries(int count) throws Exception {
        List<QueryFingerprint> queries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            queries.add(QueryFingerprint.of(parser.parse("term" + i)));
        }
        return queries;
    }
}
