package io.hedgerow.loadgen.queries;

import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.BadQueryException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.StringHelper;

/**
 * Generates a query set from an index's own vocabulary, in the {@linkplain QueryCategory
 * categories} of Lucene's nightly benchmarks. Every query is parsed as the leaves parse it and
 * counted against the whole index: AND queries and phrases are kept only when they match something
 * (in a multilingual corpus two frequent terms need not share a document), and the counts of all
 * of them are reported.
 *
 * <p>Deterministic: the same index, seed and count give the same queries in the same order. Each
 * category draws from its own random stream (seeded by the seed and the category's name), so
 * changing how one category is made leaves the others alone. {@link java.util.Random} is used
 * because its sequence is fixed by its specification, on every JDK.
 */
public final class QuerySetGenerator {
    public static final int DEFAULT_PER_CATEGORY = 200;
    /**
     * Letters in a prefix query. On Europarl the broadest 3-letter prefix of a medium term
     * ({@code con*}) matches 2,708 terms of the body, the broadest 4-letter one ({@code inte*}) 1,143.
     */
    static final int PREFIX_LENGTH = 4;
    /** A prefix matching more terms of the field than this is skipped, to keep expensive bounded. */
    static final int MAX_PREFIX_TERMS = 1024;
    static final int LARGE_OR_MIN_TERMS = 20;
    static final int LARGE_OR_MAX_TERMS = 50;
    /** Candidates tried per query wanted, for categories that reject some (AND, phrases, prefixes). */
    static final int ATTEMPTS_PER_QUERY = 50;
    /** Documents whose stored text phrases are taken from: at least this many, or 10 per phrase. */
    static final int MIN_PHRASE_POOL = 1000;

    private final OpenIndex index;
    private final Vocabulary vocabulary;

    private QuerySetGenerator(OpenIndex index, Vocabulary vocabulary) {
        this.index = index;
        this.vocabulary = vocabulary;
    }

    /** A generator drawing terms from {@code field} of {@code index}. */
    public static QuerySetGenerator create(OpenIndex index, String field) throws IOException {
        return new QuerySetGenerator(index, Vocabulary.read(index.reader(), field, index.context().analyzer()));
    }

    /**
     * The field to draw terms from when none is named: the snippet field (the body text), else the
     * first default query field.
     */
    public static String defaultField(IndexManifest manifest) {
        String snippetField = manifest.config().snippetField();
        if (snippetField != null && manifest.fieldsSeen().contains(snippetField)) {
            return snippetField;
        }
        return manifest.queryFields().getFirst();
    }

    /**
     * Opens the index in {@code store}, generates from its {@linkplain #defaultField default field}
     * and closes it again.
     */
    public static GeneratedQueries generate(PartitionStore store, long seed, int perCategory) throws IOException {
        try (OpenIndex index = OpenIndex.open(store)) {
            return create(index, defaultField(index.manifest())).generate(seed, perCategory);
        }
    }

    public Vocabulary vocabulary() {
        return vocabulary;
    }

    /** {@code perCategory} queries of each category (fewer where the index has too few). */
    public GeneratedQueries generate(long seed, int perCategory) throws IOException {
        if (perCategory < 1) {
            throw new IllegalArgumentException("perCategory: " + perCategory + " (expected: >= 1)");
        }
        List<CategoryResult> results = new ArrayList<>();
        for (QueryCategory category : QueryCategory.values()) {
            Random random = new Random(seed ^ (0x9E3779B97F4A7C15L * category.label().hashCode()));
            Accepted accepted = new Accepted(perCategory);
            String note = switch (category) {
                case HIGH_TERM -> terms(vocabulary.high(), random, accepted);
                case MEDIUM_TERM -> terms(vocabulary.medium(), random, accepted);
                case LOW_TERM -> terms(vocabulary.low(), random, accepted);
                case AND_HIGH_HIGH -> pairs(vocabulary.high(), vocabulary.high(), true, random, accepted);
                case AND_HIGH_MED -> pairs(vocabulary.high(), vocabulary.medium(), true, random, accepted);
                case OR_HIGH_HIGH -> pairs(vocabulary.high(), vocabulary.high(), false, random, accepted);
                case OR_HIGH_MED -> pairs(vocabulary.high(), vocabulary.medium(), false, random, accepted);
                case PHRASE -> phrases(random, accepted);
                case LARGE_OR -> largeOrs(random, accepted);
                case PREFIX -> prefixes(random, accepted);
            };
            if (accepted.size() < perCategory && note.isEmpty()) {
                note = "only " + accepted.size() + " of " + perCategory + " found";
            }
            results.add(new CategoryResult(category.label(), perCategory, accepted.queries, accepted.hits(), note));
        }
        QuerySet set = new QuerySet(comments(seed, perCategory, results), GeneratedQueries.nonEmpty(results));
        return new GeneratedQueries(set, results);
    }

    private List<String> comments(long seed, int perCategory, List<CategoryResult> results) {
        IndexManifest manifest = index.manifest();
        List<String> comments = new ArrayList<>();
        comments.add("Hedgerow query set: one query per line, category TAB query, in Lucene classic syntax");
        comments.add(String.format(Locale.ROOT, "index: %s, %,d docs in %d partitions; terms from field %s",
                manifest.name(), manifest.docCount(), manifest.partitions(), vocabulary.field()));
        comments.add(String.format(Locale.ROOT, "seed: %d; up to %d queries per category (loadgen queries --seed %d"
                + " --per-category %d)", seed, perCategory, seed, perCategory));
        comments.add(String.format(Locale.ROOT, "doc freq bands (max %,d): high >= %,d, medium >= %,d, low >= %,d",
                vocabulary.maxDocFreq(), vocabulary.highMin(), vocabulary.mediumMin(), vocabulary.lowMin()));
        StringBuilder counts = new StringBuilder("queries:");
        for (CategoryResult result : results) {
            counts.append(' ').append(result.category()).append(' ').append(result.queries().size());
        }
        comments.add(counts.toString());
        return comments;
    }

    /** Distinct terms of the band, in random order. */
    private String terms(List<TermStats> band, Random random, Accepted accepted) throws IOException {
        if (band.isEmpty()) {
            return "no terms in this band";
        }
        List<TermStats> shuffled = new ArrayList<>(band);
        Collections.shuffle(shuffled, random);
        for (TermStats term : shuffled) {
            if (accepted.isFull()) {
                break;
            }
            accepted.offer(term.term(), false);
        }
        return band.size() < accepted.wanted ? "only " + band.size() + " terms in this band" : "";
    }

    /**
     * Two distinct terms, one from each band, as {@code +a +b} (both required, kept only when they
     * share a document) or {@code a b} (either).
     */
    private String pairs(List<TermStats> first, List<TermStats> second, boolean and, Random random, Accepted accepted)
            throws IOException {
        if (first.isEmpty() || second.isEmpty() || (first == second && first.size() < 2)) {
            return "too few terms in the bands";
        }
        for (int attempt = 0; attempt < accepted.wanted * ATTEMPTS_PER_QUERY && !accepted.isFull(); attempt++) {
            TermStats a = first.get(random.nextInt(first.size()));
            TermStats b = second.get(random.nextInt(second.size()));
            if (a.term().equals(b.term())) {
                continue;
            }
            if (first == second && a.docFreq() < b.docFreq()) {
                TermStats swap = a; // more frequent first, so "x y" and "y x" are one query
                a = b;
                b = swap;
            }
            String query = and ? "+" + a.term() + " +" + b.term() : a.term() + " " + b.term();
            accepted.offer(query, and);
        }
        return "";
    }

    private String phrases(Random random, Accepted accepted) throws IOException {
        String field = vocabulary.field();
        int pool = Math.max(MIN_PHRASE_POOL, 10 * accepted.wanted);
        List<PhraseCandidates.Phrase> candidates =
                PhraseCandidates.collect(index.reader(), field, index.context().analyzer(), vocabulary, random, pool);
        if (candidates.isEmpty()) {
            return "no stored text in field " + field + " to take phrases from";
        }
        // Repeated phrases come first in the list: draw from them while there are enough.
        int repeated = (int) candidates.stream().filter(phrase -> phrase.sampledDocs() >= 2).count();
        int drawFrom = repeated >= accepted.wanted ? repeated : candidates.size();
        List<PhraseCandidates.Phrase> shuffled = new ArrayList<>(candidates.subList(0, drawFrom));
        Collections.shuffle(shuffled, random);
        for (PhraseCandidates.Phrase phrase : shuffled) {
            if (accepted.isFull()) {
                break;
            }
            accepted.offer(phrase.query(), true);
        }
        return "";
    }

    private String largeOrs(Random random, Accepted accepted) throws IOException {
        List<TermStats> band = vocabulary.medium();
        if (band.size() < LARGE_OR_MIN_TERMS) {
            return "fewer than " + LARGE_OR_MIN_TERMS + " medium terms";
        }
        for (int attempt = 0; attempt < accepted.wanted * ATTEMPTS_PER_QUERY && !accepted.isFull(); attempt++) {
            int size = LARGE_OR_MIN_TERMS + random.nextInt(LARGE_OR_MAX_TERMS - LARGE_OR_MIN_TERMS + 1);
            size = Math.min(size, band.size());
            Set<String> terms = new LinkedHashSet<>();
            while (terms.size() < size) {
                terms.add(band.get(random.nextInt(band.size())).term());
            }
            accepted.offer(String.join(" ", terms), false);
        }
        return "";
    }

    /**
     * The first {@value #PREFIX_LENGTH} letters of medium terms (as luceneutil's {@code Prefix3}
     * takes 3), each prefix once, skipping any that match more than {@value #MAX_PREFIX_TERMS}
     * terms of the field.
     */
    private String prefixes(Random random, Accepted accepted) throws IOException {
        List<TermStats> band = vocabulary.medium();
        Terms terms = MultiTerms.getTerms(index.reader(), vocabulary.field());
        if (band.isEmpty() || terms == null) {
            return "no medium terms";
        }
        Set<String> tried = new HashSet<>();
        List<Integer> expansions = new ArrayList<>();
        int tooBroad = 0;
        for (int attempt = 0; attempt < accepted.wanted * ATTEMPTS_PER_QUERY && !accepted.isFull(); attempt++) {
            String term = band.get(random.nextInt(band.size())).term();
            if (term.codePointCount(0, term.length()) <= PREFIX_LENGTH) {
                continue; // the prefix would be the whole word
            }
            String prefix = term.substring(0, term.offsetByCodePoints(0, PREFIX_LENGTH));
            if (!tried.add(prefix)) {
                continue;
            }
            int expansion = countTermsWithPrefix(terms, prefix);
            if (expansion > MAX_PREFIX_TERMS) {
                tooBroad++;
                continue;
            }
            if (accepted.offer(prefix + "*", false)) {
                expansions.add(expansion);
            }
        }
        if (expansions.isEmpty()) {
            return "no usable prefixes";
        }
        int[] sorted = expansions.stream().mapToInt(Integer::intValue).sorted().toArray();
        return String.format(Locale.ROOT, "%d-letter prefixes match %d terms of %s (median), %d at most;"
                        + " %d matching over %d skipped", PREFIX_LENGTH, sorted[sorted.length / 2],
                vocabulary.field(), sorted[sorted.length - 1], tooBroad, MAX_PREFIX_TERMS);
    }

    /** How many terms of the field start with {@code prefix}, counting no further than the cap. */
    static int countTermsWithPrefix(Terms terms, String prefix) throws IOException {
        BytesRef prefixBytes = new BytesRef(prefix);
        TermsEnum termsEnum = terms.iterator();
        if (termsEnum.seekCeil(prefixBytes) == TermsEnum.SeekStatus.END) {
            return 0;
        }
        int count = 0;
        for (BytesRef term = termsEnum.term(); term != null && StringHelper.startsWith(term, prefixBytes);
                term = termsEnum.next()) {
            if (++count > MAX_PREFIX_TERMS) {
                break;
            }
        }
        return count;
    }

    /** Queries kept so far in one category, with their hit counts; each query once. */
    private final class Accepted {
        final int wanted;
        final List<String> queries = new ArrayList<>();
        final List<Integer> hitCounts = new ArrayList<>();
        final Set<String> seen = new HashSet<>();

        Accepted(int wanted) {
            this.wanted = wanted;
        }

        boolean isFull() {
            return queries.size() >= wanted;
        }

        int size() {
            return queries.size();
        }

        /** Keeps {@code query} if it is new, parses and (when {@code mustMatch}) matches something. */
        boolean offer(String query, boolean mustMatch) throws IOException {
            if (!seen.add(query)) {
                return false;
            }
            Query parsed;
            try {
                parsed = index.context().parsing().parse(query);
            } catch (BadQueryException e) {
                return false; // cannot happen with plain terms; skipping is still right if it does
            }
            int hits = index.searcher().count(parsed);
            if (mustMatch && hits == 0) {
                return false;
            }
            queries.add(query);
            hitCounts.add(hits);
            return true;
        }

        int[] hits() {
            return hitCounts.stream().mapToInt(Integer::intValue).toArray();
        }
    }
}
