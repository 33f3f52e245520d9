package io.hedgerow.root.embedded;

import io.hedgerow.api.Filter;
import io.hedgerow.api.SortField;
import io.hedgerow.leaf.index.Analyzers;
import io.hedgerow.leaf.index.DocumentMapper;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortedNumericSelector;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.search.SortedSetSelector;
import org.apache.lucene.search.SortedSetSortField;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;

/**
 * The oracle of {@link ClusterSearchEquivalenceTest}: every document in ONE Lucene index (mapped as
 * the leaves map them), searched with a Lucene {@link Sort} and filter built here from what
 * docs/http-api.md promises rather than from the leaf's own translation: a multi-valued field sorts
 * by its lowest value ascending and its highest descending, a document without a value comes last
 * either way, ties after the last key go to the id ascending. The expected sort values of a hit are
 * worked out from the source document in plain Java, a second opinion on the order.
 */
final class OneIndexOracle implements AutoCloseable {
    private final IndexConfig config;
    private final Map<String, SourceDocument> byId = new HashMap<>();
    private final Analyzer analyzer;
    private final Directory directory = new ByteBuffersDirectory();
    private final DirectoryReader reader;
    private final IndexSearcher searcher;

    OneIndexOracle(IndexConfig config, List<SourceDocument> docs) throws IOException {
        this.config = config;
        this.analyzer = Analyzers.forConfig(config);
        DocumentMapper mapper = new DocumentMapper(config);
        try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig(analyzer))) {
            for (SourceDocument doc : docs) {
                writer.addDocument(mapper.toDocument(doc.id(), doc.fields()));
                byId.put(doc.id(), doc);
            }
        }
        this.reader = DirectoryReader.open(directory);
        this.searcher = new IndexSearcher(reader);
    }

    /** Every matching document's id, in the sort's order. */
    List<String> sortedIds(String text, Filter filter, List<SortField> sort) throws Exception {
        Query query = query(text, filter);
        int all = Math.max(1, reader.maxDoc());
        TopFieldDocs top = searcher.search(query, new TopFieldCollectorManager(sort(sort), all, null, Integer.MAX_VALUE));
        List<String> ids = new ArrayList<>(top.scoreDocs.length);
        for (ScoreDoc doc : top.scoreDocs) {
            ids.add(reader.storedFields().document(doc.doc).get(IndexConfig.ID_FIELD));
        }
        return ids;
    }

    /**
     * Every matching document in the sort's order when its score is the one its own partition gives
     * it (BM25 with that partition's statistics): each of {@code partitions} is searched with plain
     * Lucene, and the documents are put in order here, in Java, by the documented rules.
     */
    Scored sortedIdsByPartitionScores(String text, Filter filter, List<SortField> sort, List<IndexSearcher> partitions)
            throws Exception {
        Query query = query(text, filter);
        Map<String, Float> scores = new HashMap<>();
        for (IndexSearcher partition : partitions) {
            int all = Math.max(1, partition.getIndexReader().maxDoc());
            for (ScoreDoc doc : partition.search(query, all).scoreDocs) {
                String id = partition.storedFields().document(doc.doc).get(IndexConfig.ID_FIELD);
                if (scores.put(id, doc.score) != null) {
                    throw new IllegalStateException(id + " in two partitions");
                }
            }
        }
        List<String> ids = new ArrayList<>(scores.keySet());
        Map<String, List<Object>> values = new HashMap<>();
        ids.forEach(id -> values.put(id, sortValues(id, sort, scores)));
        ids.sort((a, b) -> compare(values.get(a), values.get(b), sort));
        return new Scored(ids, scores);
    }

    /** Documents in order, and each one's score in its partition. */
    record Scored(List<String> ids, Map<String, Float> scores) {
    }

    /** Key by key (no value last either way; each in its direction), then the id (the last value) ascending. */
    private static int compare(List<Object> a, List<Object> b, List<SortField> sort) {
        for (int i = 0; i <= sort.size(); i++) {
            Object x = a.get(i);
            Object y = b.get(i);
            if (x == null || y == null) {
                if (x != y) {
                    return x == null ? 1 : -1;
                }
                continue;
            }
            int cmp = switch (x) {
                case String text -> new BytesRef(text).compareTo(new BytesRef((String) y));
                case Float f -> Float.compare(f, (Float) y);
                case Double d -> Double.compare(d, (Double) y);
                default -> Long.compare((Long) x, (Long) y);
            };
            if (cmp != 0) {
                return i < sort.size() && sort.get(i).descending() ? -cmp : cmp;
            }
        }
        return 0;
    }

    long count(String text, Filter filter) throws Exception {
        return searcher.count(query(text, filter));
    }

    /**
     * A hit's sort values as the API documents them: per key its value (Long for long, date and
     * boolean, Double, String for keywords and the id, Float for the score; the lowest value
     * ascending, the highest descending; null without one), then its id. Scores only come from
     * {@code *:*}, which scores every document 1.
     */
    List<Object> sortValues(String id, List<SortField> sort) {
        return sortValues(id, sort, Map.of());
    }

    /** As {@link #sortValues(String, List)}, a document's score from {@code scores} when there (else 1). */
    List<Object> sortValues(String id, List<SortField> sort, Map<String, Float> scores) {
        SourceDocument doc = byId.get(id);
        List<Object> values = new ArrayList<>(sort.size() + 1);
        for (SortField key : sort) {
            if (SortField.SCORE.equals(key.field())) {
                values.add(scores.getOrDefault(id, 1.0f));
                continue;
            }
            if (IndexConfig.ID_FIELD.equals(key.field())) {
                values.add(id);
                continue;
            }
            values.add(extreme(doc, key.field(), key.descending()));
        }
        values.add(id);
        return values;
    }

    /** The document's lowest value of {@code field} (its highest when {@code highest}), typed; null without one. */
    private Object extreme(SourceDocument doc, String field, boolean highest) {
        Object raw = doc.fields().get(field);
        List<String> texts = raw == null ? List.of() : raw instanceof List<?> list
                ? list.stream().map(String.class::cast).toList() : List.of((String) raw);
        if (texts.isEmpty()) {
            return null;
        }
        FieldSpec.Type type = config.typeOf(field);
        if (type == FieldSpec.Type.KEYWORD) {
            // Keywords order by their UTF-8 bytes, unsigned, as Lucene's terms do.
            Comparator<String> bytes = Comparator.comparing(BytesRef::new);
            return highest ? texts.stream().max(bytes).orElseThrow() : texts.stream().min(bytes).orElseThrow();
        }
        if (type == FieldSpec.Type.DOUBLE) {
            var stream = texts.stream().map(Double::parseDouble);
            return highest ? stream.max(Double::compare).orElseThrow() : stream.min(Double::compare).orElseThrow();
        }
        var stream = texts.stream().map(text -> switch (type) {
            case LONG -> Long.parseLong(text);
            case DATE -> dateMillis(text);
            case BOOLEAN -> Boolean.parseBoolean(text) ? 1L : 0L;
            default -> throw new IllegalArgumentException("sort on " + type + " field " + field);
        });
        return highest ? stream.max(Long::compare).orElseThrow() : stream.min(Long::compare).orElseThrow();
    }

    private static long dateMillis(String text) {
        if (text.matches("-?\\d+")) {
            return Long.parseLong(text);
        }
        if (text.length() == 10) {
            return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        }
        return Instant.parse(text).toEpochMilli();
    }

    private Query query(String text, Filter filter) throws Exception {
        Query base = "*:*".equals(text) ? new MatchAllDocsQuery() : new QueryParser("title", analyzer).parse(text);
        if (filter == null) {
            return base;
        }
        return new BooleanQuery.Builder().add(base, BooleanClause.Occur.MUST)
                .add(filter(filter), BooleanClause.Occur.FILTER).build();
    }

    private Query filter(Filter filter) {
        return switch (filter) {
            case Filter.Terms terms -> {
                FieldSpec.Type type = config.typeOf(terms.field());
                if (type == FieldSpec.Type.KEYWORD) {
                    yield new TermInSetQuery(terms.field(), terms.values().stream().map(BytesRef::new).toList());
                }
                yield LongPoint.newSetQuery(terms.field(), terms.values().stream().mapToLong(v -> encode(type, v)).toArray());
            }
            case Filter.Range range -> {
                FieldSpec.Type type = config.typeOf(range.field());
                long lower = range.gte() != null ? encode(type, range.gte())
                        : range.gt() != null ? Math.addExact(encode(type, range.gt()), 1) : Long.MIN_VALUE;
                long upper = range.lte() != null ? encode(type, range.lte())
                        : range.lt() != null ? Math.subtractExact(encode(type, range.lt()), 1) : Long.MAX_VALUE;
                yield LongPoint.newRangeQuery(range.field(), lower, upper);
            }
            case Filter.Exists exists -> new FieldExistsQuery(exists.field());
            case Filter.Bool bool -> {
                BooleanQuery.Builder b = new BooleanQuery.Builder();
                bool.must().forEach(f -> b.add(filter(f), BooleanClause.Occur.FILTER));
                bool.should().forEach(f -> b.add(filter(f), BooleanClause.Occur.SHOULD));
                bool.mustNot().forEach(f -> b.add(filter(f), BooleanClause.Occur.MUST_NOT));
                if (!bool.should().isEmpty()) {
                    b.setMinimumNumberShouldMatch(1);
                } else if (bool.must().isEmpty()) {
                    b.add(new MatchAllDocsQuery(), BooleanClause.Occur.FILTER);
                }
                yield b.build();
            }
        };
    }

    /** A value of a numeric field as its points hold it. */
    private static long encode(FieldSpec.Type type, String text) {
        return switch (type) {
            case LONG -> Long.parseLong(text);
            case DOUBLE -> NumericUtils.doubleToSortableLong(Double.parseDouble(text));
            case DATE -> dateMillis(text);
            case BOOLEAN -> Boolean.parseBoolean(text) ? 1 : 0;
            default -> throw new IllegalArgumentException(type + " is not numeric");
        };
    }

    private Sort sort(List<SortField> keys) {
        List<org.apache.lucene.search.SortField> fields = new ArrayList<>();
        for (SortField key : keys) {
            boolean desc = key.descending();
            if (SortField.SCORE.equals(key.field())) {
                fields.add(new org.apache.lucene.search.SortField(null, org.apache.lucene.search.SortField.Type.SCORE, !desc));
            } else if (IndexConfig.ID_FIELD.equals(key.field())) {
                fields.add(new org.apache.lucene.search.SortField(key.field(), org.apache.lucene.search.SortField.Type.STRING, desc));
            } else if (config.typeOf(key.field()) == FieldSpec.Type.KEYWORD) {
                SortedSetSortField field = new SortedSetSortField(key.field(), desc,
                        desc ? SortedSetSelector.Type.MAX : SortedSetSelector.Type.MIN);
                field.setMissingValue(desc ? org.apache.lucene.search.SortField.STRING_FIRST
                        : org.apache.lucene.search.SortField.STRING_LAST);
                fields.add(field);
            } else {
                SortedNumericSortField field = new SortedNumericSortField(key.field(),
                        org.apache.lucene.search.SortField.Type.LONG, desc,
                        desc ? SortedNumericSelector.Type.MAX : SortedNumericSelector.Type.MIN);
                field.setMissingValue(desc ? Long.MIN_VALUE : Long.MAX_VALUE);
                fields.add(field);
            }
        }
        fields.add(new org.apache.lucene.search.SortField(IndexConfig.ID_FIELD, org.apache.lucene.search.SortField.Type.STRING));
        return new Sort(fields.toArray(org.apache.lucene.search.SortField[]::new));
    }

    @Override
    public void close() throws IOException {
        reader.close();
        directory.close();
    }
}
