package io.hedgerow.leaf.search;

import io.hedgerow.common.policy.WarmupConvergence;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import org.apache.lucene.index.QueryTimeout;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.BytesRef;

/**
 * Runs newly opened partitions' search and fetch code before they serve, with queries made from
 * their own frequent terms (terms, ANDs, ORs, phrases and prefixes), until the warm-up's search rate
 * stops rising ({@link WarmupConvergence}: no 1 s window 10% better than the best for 3 s) or for
 * the longest warm-up allowed.
 *
 * <p>Why: a leaf JVM starts interpreted. On a small machine the first minute of real traffic
 * otherwise runs while the JIT compiles Lucene's scorers and the leaf's own code, and a freshly
 * (re)started leaf answers so slowly that queries time out and come back tainted. Warming before
 * the leaf acknowledges its partitions keeps that cost out of served traffic: the root sends a
 * leaf nothing until it has acknowledged. A fixed warm-up of 3 s left a restarted leaf still
 * compiling once it served; how long the JIT needs depends on the machine and its load, so the
 * warm-up watches its own rate instead.
 *
 * <p>It pauses after each search as long as the search took, so it takes at most half a core: a
 * leaf restarted under load shares its machine with leaves that serve (on the project's two cores,
 * with all of them), and the rate it watches still rises as the code gets faster.
 */
public final class PartitionWarmer {
    /** Frequent terms taken to build warm-up queries. */
    private static final int TERMS_PER_PARTITION = 24;
    private static final int TERMS_SCANNED = 20_000;
    private static final QueryTimeout NEVER = () -> false;
    private static final long WINDOW_NANOS = 1_000_000_000L;
    private static final int STABLE_WINDOWS = 3;
    private static final double IMPROVEMENT = 0.10;

    private final Ticker ticker;
    private final long budgetNanos;
    private final LongConsumer pause;

    /**
     * @param longest how long a warm-up may run at most; zero for none
     * @param pause   waits the given nanoseconds (after each search, as long as it took)
     */
    public PartitionWarmer(Ticker ticker, Duration longest, LongConsumer pause) {
        if (longest.isNegative()) {
            throw new IllegalArgumentException("longest: " + longest + " (expected: >= 0)");
        }
        this.ticker = ticker;
        this.budgetNanos = longest.toNanos();
        this.pause = pause;
    }

    /** A warm-up on the system clock that pauses by parking its thread. */
    public static PartitionWarmer paced(Duration longest) {
        return new PartitionWarmer(Ticker.system(), longest, LockSupport::parkNanos);
    }

    /**
     * Searches and fetches from {@code partitions} until the rate converges or the budget is spent.
     * The partitions must not be closed meanwhile.
     *
     * @return the number of searches run
     */
    public int warm(List<PartitionSearcher> partitions) throws IOException {
        if (budgetNanos == 0 || partitions.isEmpty()) {
            return 0;
        }
        long startNanos = ticker.nanoTime();
        long endNanos = startNanos + budgetNanos;
        WarmupConvergence convergence = new WarmupConvergence(startNanos, WINDOW_NANOS, STABLE_WINDOWS, IMPROVEMENT);
        // Partitions of one index share most of their vocabulary: one partition's terms will do.
        List<Query> queries = queriesFrom(partitions.get(0));
        if (queries.isEmpty()) {
            return 0;
        }
        SearchRequest request = SearchRequest.newBuilder().setK(10).setTotalHitsThreshold(1000).build();
        int searches = 0;
        while (true) {
            for (Query query : queries) {
                for (PartitionSearcher partition : partitions) {
                    long beganNanos = ticker.nanoTime();
                    if (beganNanos - endNanos >= 0 || convergence.converged(beganNanos)) {
                        return searches;
                    }
                    searches++;
                    try {
                        SearchResponse.Builder answer = partition.search(query, request, NEVER);
                        int[] docs = answer.getHitsList().stream().mapToInt(hit -> hit.getDoc()).toArray();
                        partition.fetch(query, docs, true, true);
                    } catch (BadQueryException e) {
                        // not with plain terms and phrases; the time budget still ends the loop
                    }
                    long doneNanos = ticker.nanoTime();
                    convergence.searchDone(doneNanos);
                    pause.accept(doneNanos - beganNanos);
                }
            }
        }
    }

    /** Queries of every shape the leaf serves, from the partition's most frequent terms. */
    static List<Query> queriesFrom(PartitionSearcher partition) throws IOException {
        IndexContext context = partition.context();
        String field = context.snippetField() != null ? context.snippetField() : context.manifest().queryFields().get(0);
        List<String> terms = frequentTerms(partition, field);
        List<String> texts = new ArrayList<>();
        for (int i = 0; i + 1 < terms.size(); i += 2) {
            String a = terms.get(i);
            String b = terms.get(i + 1);
            texts.add(a);
            texts.add("+" + a + " +" + b);
            texts.add(a + " " + b);
            texts.add("\"" + a + " " + b + "\"");
            texts.add(a.substring(0, 3) + "*");
        }
        List<Query> queries = new ArrayList<>();
        for (String text : texts) {
            try {
                queries.add(context.parsing().parse(text));
            } catch (BadQueryException e) {
                // A term the analyzer splits or drops makes no useful warm-up query; skip it.
            }
        }
        return queries;
    }

    /**
     * The most frequent of the first {@value #TERMS_SCANNED} terms: a cold JVM reads a whole term
     * dictionary slowly, and any frequent terms warm the same code.
     */
    private static List<String> frequentTerms(PartitionSearcher partition, String field) throws IOException {
        PriorityQueue<Frequent> top = new PriorityQueue<>();
        Terms terms = partition.terms(field);
        if (terms == null) {
            return List.of();
        }
        TermsEnum iterator = terms.iterator();
        int scanned = 0;
        for (BytesRef term = iterator.next(); term != null && scanned < TERMS_SCANNED; term = iterator.next()) {
            scanned++;
            if (term.length >= 4 && isLowerCaseAscii(term)) {
                top.add(new Frequent(term.utf8ToString(), iterator.docFreq()));
                if (top.size() > TERMS_PER_PARTITION) {
                    top.poll();
                }
            }
        }
        List<String> result = new ArrayList<>();
        top.forEach(frequent -> result.add(frequent.text()));
        return result;
    }

    private static boolean isLowerCaseAscii(BytesRef term) {
        for (int i = term.offset; i < term.offset + term.length; i++) {
            if (term.bytes[i] < 'a' || term.bytes[i] > 'z') {
                return false;
            }
        }
        return true;
    }

    private record Frequent(String text, int docFreq) implements Comparable<Frequent> {
        @Override
        public int compareTo(Frequent other) {
            return Integer.compare(docFreq, other.docFreq);
        }
    }
}
