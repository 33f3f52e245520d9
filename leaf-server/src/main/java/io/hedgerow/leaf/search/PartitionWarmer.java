package io.hedgerow.leaf.search;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.lucene.index.QueryTimeout;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.BytesRef;

/**
 * Runs newly opened partitions' search and fetch code for a while before they serve, with queries
 * made from their own frequent terms: terms, ANDs, ORs, phrases and prefixes.
 *
 * <p>Why: a leaf JVM starts interpreted. On a small machine the first minute of real traffic
 * otherwise runs while the JIT compiles Lucene's scorers and the leaf's own code, and a freshly
 * (re)started leaf answers so slowly that queries time out and come back tainted. Warming before
 * the leaf acknowledges its partitions keeps that cost out of served traffic: the root sends a
 * leaf nothing until it has acknowledged.
 */
public final class PartitionWarmer {
    /** Frequent terms taken to build warm-up queries. */
    private static final int TERMS_PER_PARTITION = 24;
    private static final int TERMS_SCANNED = 20_000;
    private static final QueryTimeout NEVER = () -> false;

    private final Ticker ticker;
    private final long budgetNanos;

    /** @param budget how long a warm-up runs; zero for none */
    public PartitionWarmer(Ticker ticker, Duration budget) {
        if (budget.isNegative()) {
            throw new IllegalArgumentException("budget: " + budget + " (expected: >= 0)");
        }
        this.ticker = ticker;
        this.budgetNanos = budget.toNanos();
    }

    /**
     * Searches and fetches from {@code partitions} until the budget is spent. The partitions must
     * not be closed meanwhile.
     *
     * @return the number of searches run
     */
    public int warm(List<PartitionSearcher> partitions) throws IOException {
        if (budgetNanos == 0 || partitions.isEmpty()) {
            return 0;
        }
        long endNanos = ticker.nanoTime() + budgetNanos;
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
                    if (ticker.nanoTime() - endNanos >= 0) {
                        return searches;
                    }
                    SearchResponse.Builder answer;
                    searches++;
                    try {
                        answer = partition.search(query, request, NEVER);
                    } catch (BadQueryException e) {
                        continue; // not with plain terms and phrases; the time budget still ends the loop
                    }
                    int[] docs = answer.getHitsList().stream().mapToInt(hit -> hit.getDoc()).toArray();
                    partition.fetch(query, docs, true, true);
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
