package io.hedgerow.leaf.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.leaf.index.BadInputException;
import io.hedgerow.leaf.index.EuroparlSource;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.JsonlSource;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.leaf.index.SourceEntry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class TypedFieldsTest {
    @TempDir
    Path dir;

    private static IndexConfig typedConfig() {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true).withAnalyzer("english"));
        fields.put("price", FieldSpec.of(FieldSpec.Type.DOUBLE, true));
        fields.put("stock", FieldSpec.of(FieldSpec.Type.LONG, true));
        fields.put("added", FieldSpec.of(FieldSpec.Type.DATE, true));
        fields.put("sale", FieldSpec.of(FieldSpec.Type.BOOLEAN, true));
        fields.put("tags", FieldSpec.keyword(true));
        return new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of("title"), null);
    }

    private static List<SourceEntry> read(String jsonl, IndexConfig config) throws IOException {
        List<SourceEntry> entries = new ArrayList<>();
        try (JsonlSource source = new JsonlSource("test.jsonl",
                new ByteArrayInputStream(jsonl.getBytes(StandardCharsets.UTF_8)), config)) {
            for (SourceEntry entry = source.next(); entry != null; entry = source.next()) {
                entries.add(entry);
            }
        }
        return entries;
    }

    private PartitionSearcher build(IndexConfig config, List<SourceDocument> docs) throws IOException {
        PartitionStore store = new PartitionStore(dir.resolve("index"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(1), IndexProgress.none()).build(store, "index", config, docs);
        return PartitionSearcher.open(IndexContext.of(store, store.readManifest()), 0);
    }

    private static Set<String> ids(PartitionSearcher searcher, String query, String lang) throws Exception {
        SearchResponse response = searcher.search(searcher.context().parsing().parse(query, lang),
                SearchRequest.newBuilder().setK(1000).build(), null).build();
        return response.getHitsList().stream().map(hit -> hit.getId()).collect(Collectors.toSet());
    }

    @Test
    void indexesJsonNumbersBooleansDatesAndArraysAndSearchesThemByPoints() throws Exception {
        List<SourceEntry> entries = read("""
                {"id": "a", "title": "red apples", "price": 1.5, "stock": 10, "added": "2024-01-02", "sale": true, "tags": ["fruit", "red"]}
                {"id": "b", "title": "green apple", "price": 12, "stock": -3, "added": 1704240000000, "sale": false, "tags": "fruit"}
                {"id": "c", "title": "pears", "price": null, "stock": 7, "added": "2024-01-03T10:00:00Z", "tags": []}
                """, typedConfig());
        assertThat(entries).allMatch(SourceDocument.class::isInstance);
        assertThat(((SourceDocument) entries.get(0)).values("tags")).containsExactly("fruit", "red");
        try (PartitionSearcher searcher = build(typedConfig(), entries.stream().map(SourceDocument.class::cast).toList())) {
            assertThat(ids(searcher, "apple", null)).as("english stemming on title").containsExactlyInAnyOrder("a", "b");
            assertThat(ids(searcher, "price:[1 TO 2]", null)).containsExactly("a");
            assertThat(ids(searcher, "stock:[* TO 7]", null)).containsExactlyInAnyOrder("b", "c");
            assertThat(ids(searcher, "stock:10", null)).containsExactly("a");
            assertThat(ids(searcher, "sale:true", null)).containsExactly("a");
            assertThat(ids(searcher, "added:[2024-01-03 TO *]", null)).as("b is 2024-01-03T00:00Z in epoch millis")
                    .containsExactlyInAnyOrder("b", "c");
            assertThat(ids(searcher, "tags:red", null)).containsExactly("a");
            assertThat(ids(searcher, "tags:fruit", null)).containsExactlyInAnyOrder("a", "b");
        }
    }

    @Test
    void aValueOfTheWrongTypeIsABadLineNamingItsLineAndField() throws IOException {
        List<SourceEntry> entries = read("""
                {"id": "a", "stock": 1}
                {"id": "b", "stock": "many"}
                {"id": "c", "tags": {"nested": 1}}
                """, typedConfig());
        assertThat(entries.get(2).toString()).contains("tags").contains("object");
        List<SourceDocument> docs = List.of((SourceDocument) entries.get(0), (SourceDocument) entries.get(1));
        PartitionStore store = new PartitionStore(dir.resolve("bad"));
        assertThatThrownBy(() -> new IndexBuilder(IndexOptions.defaults().withPartitions(1), IndexProgress.none())
                .build(store, "bad", typedConfig(), docs))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("line 2").hasMessageContaining("field 'stock'").hasMessageContaining("'many'");
    }

    @Test
    void anIndexOfAnOlderFormatIsRefusedSayingHowToRebuildIt() {
        assertThatThrownBy(() -> new IndexManifest(2, "old", 1, IndexConfig.defaults(), List.of(), 1, 0, List.of(0L),
                "2026-01-01T00:00:00Z"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("format: 2 (expected: " + IndexManifest.FORMAT + ")")
                .hasMessageContaining("older").hasMessageContaining("rebuild it");
    }

    /**
     * German and French Europarl debates, each indexed into body.de / body.fr by its language's
     * analyzer: a query for one inflected form finds documents that hold only another form of the
     * same stem, in the query's language; the standard analyzer (no lang) does not.
     */
    @Test
    void europarlGermanAndFrenchDebatesAreFoundByStemmedQueriesInTheirLanguage() throws Exception {
        List<SourceDocument> docs = new ArrayList<>();
        try (EuroparlSource source = EuroparlSource.open()) {
            for (SourceEntry entry = source.next(); entry != null; entry = source.next()) {
                if (entry instanceof SourceDocument doc && Set.of("de", "fr").contains(doc.value("lang"))) {
                    docs.add(doc);
                }
            }
        }
        try (PartitionSearcher searcher = build(IndexConfig.europarl(), docs)) {
            assertThat(searcher.context().manifest().fieldsSeen()).contains("body.de", "body.fr", "date", "body_length");
            assertFoundOnlyByStem(searcher, docs, "de", "Verhandlungen", "Verhandlung");
            assertFoundOnlyByStem(searcher, docs, "fr", "propositions", "proposition");
            assertThat(ids(searcher, "date:[2000-01-01 TO 2000-12-31] AND body_length:[1000 TO *]", null)).isNotEmpty()
                    .allMatch(id -> {
                        SourceDocument doc = docs.stream().filter(d -> d.id().equals(id)).findFirst().orElseThrow();
                        return doc.value("date").startsWith("2000") && doc.value("body").length() >= 1000;
                    });
        }
    }

    /**
     * {@code lang: "*"} (every language the index has) and a list ({@code de,fr}) search each
     * language's copy, so a German and a French document are both found by the forms only their own
     * language's stemmer matches; and the cost estimate (which the expansion budget and the
     * expensive lane read) counts every copy's terms: over two languages, each language's share.
     */
    @Test
    void everyLanguageOrAListFindsEachDocumentThroughItsOwnLanguagesCopyAndCostsEveryCopy() throws Exception {
        List<SourceDocument> docs = new ArrayList<>();
        try (EuroparlSource source = EuroparlSource.open()) {
            for (SourceEntry entry = source.next(); entry != null; entry = source.next()) {
                if (entry instanceof SourceDocument doc && Set.of("de", "fr").contains(doc.value("lang"))) {
                    docs.add(doc);
                }
            }
        }
        try (PartitionSearcher searcher = build(IndexConfig.europarl(), docs)) {
            assertThat(searcher.context().manifest().config().languagesSeen(searcher.context().manifest().fieldsSeen()))
                    .containsExactly("de", "fr");
            Set<String> german = onlyOtherForm(docs, "de", "Verhandlungen", "Verhandlung");
            Set<String> french = onlyOtherForm(docs, "fr", "propositions", "proposition");
            for (String languages : List.of("*", "de,fr")) {
                Set<String> found = ids(searcher, "Verhandlungen propositions", languages);
                assertThat(found).as(languages).containsAll(german).containsAll(french);
            }
            assertThat(ids(searcher, "Verhandlungen propositions", "fr")).as("French alone: not the German ones")
                    .containsAll(french).doesNotContainAnyElementsOf(german);

            QueryParsing parsing = searcher.context().parsing();
            QueryCost all = searcher.estimateCost(parsing.parse("verhandl* propos*", "*"));
            QueryCost de = searcher.estimateCost(parsing.parse("verhandl* propos*", "de"));
            QueryCost fr = searcher.estimateCost(parsing.parse("verhandl* propos*", "fr"));
            QueryCost title = searcher.estimateCost(parsing.parse("title:verhandl* title:propos*", null));
            assertThat(de.expandedTerms()).isPositive();
            assertThat(fr.expandedTerms()).isPositive();
            // Each language's estimate holds the title once; every language's holds it once too.
            assertThat(all.expandedTerms() + title.expandedTerms()).isEqualTo(de.expandedTerms() + fr.expandedTerms());
            assertThat(all.postings() + title.postings()).isEqualTo(de.postings() + fr.postings());
            assertThat(all).isEqualTo(searcher.estimateCost(parsing.parse("verhandl* propos*", "de,fr")));

        }
    }

    /**
     * In a search in several languages each hit's snippet and highlights are of its own language's
     * copy, the forms it was found by: {@code Verhandlungen} marks a German document's
     * {@code Verhandlung} only as German, {@code rapidement} a French one's {@code rapide} only as
     * French (each analyzer leaves the other's word unstemmed).
     */
    @Test
    void aSearchInSeveralLanguagesHighlightsEachHitAsItsOwnLanguage() throws Exception {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("body", FieldSpec.text(true, false).withLanguageField("lang"));
        fields.put("lang", FieldSpec.keyword(true));
        IndexConfig config = new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of("title", "body"),
                "body");
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 6; i < 9; i++) { // without a language: the language doc values are sparse
            docs.add(new SourceDocument("none-" + i, Map.of("title", "note " + i, "body", "A short note."), i + 1));
        }
        for (int i = 0; i < 6; i++) {
            boolean german = i % 2 == 0;
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("title", "debate " + i);
            doc.put("body", german ? "Die Verhandlung beginnt heute." : "Une réponse rapide du Parlement.");
            doc.put("lang", german ? "de" : "fr");
            docs.add(new SourceDocument((german ? "de-" : "fr-") + i, doc, i + 1));
        }
        try (PartitionSearcher searcher = build(config, docs)) {
            var highlight = io.hedgerow.common.wire.proto.HighlightSpec.newBuilder().setPreTag("[").setPostTag("]")
                    .addFields(io.hedgerow.common.wire.proto.HighlightFieldSpec.newBuilder().setField("body")
                            .setNumberOfFragments(1).setFragmentSize(200))
                    .build();
            for (String languages : List.of("*", "de,fr")) {
                var query = searcher.context().parsing().parse("Verhandlungen rapidement", languages);
                List<Hit> hits = searcher.search(query, SearchRequest.newBuilder().setK(10).build(), null).build()
                        .getHitsList();
                assertThat(hits).as(languages).hasSize(6);
                int[] byScore = hits.stream().mapToInt(Hit::getDoc).toArray();
                int[] byDocDescending = hits.stream().mapToInt(Hit::getDoc).boxed()
                        .sorted(java.util.Comparator.reverseOrder()).mapToInt(Integer::intValue).toArray();
                for (int[] order : List.of(byScore, byDocDescending)) { // the fetch reads languages in doc order
                    var fetched = searcher.fetch(query, order, true, false, List.of(), highlight);
                    assertThat(fetched).hasSize(6).allSatisfy(doc -> {
                        String form = doc.getId().startsWith("de-") ? "Verhandlung" : "rapide";
                        assertThat(doc.getSnippet()).as("the snippet of %s", doc.getId()).contains("<b>" + form + "</b>");
                        assertThat(doc.getHighlightList()).as("the highlight of %s", doc.getId()).singleElement()
                                .satisfies(field -> assertThat(field.getFragmentsList()).singleElement().asString()
                                        .contains("[" + form + "]"));
                    });
                }
            }
        }
    }

    private static Set<String> onlyOtherForm(List<SourceDocument> docs, String lang, String queryForm, String otherForm) {
        Pattern other = Pattern.compile("\\b" + otherForm + "\\b");
        Pattern query = Pattern.compile("\\b" + queryForm + "\\b", Pattern.CASE_INSENSITIVE);
        Set<String> ids = docs.stream()
                .filter(doc -> lang.equals(doc.value("lang")))
                .filter(doc -> other.matcher(doc.value("body")).find() && !query.matcher(doc.value("body")).find()
                        && !query.matcher(doc.value("title")).find())
                .map(SourceDocument::id).collect(Collectors.toSet());
        assertThat(ids).as("documents with '%s' but not '%s'", otherForm, queryForm).isNotEmpty();
        return ids;
    }

    /**
     * A search in a language matches a field's per-language copy; its snippets and highlights must
     * mark the forms it matched there (a document holding only "Verhandlung" for "Verhandlungen"),
     * which the field itself, standard-analysed, does not hold. Before the fetch knew the language,
     * such a snippet came back without any mark.
     */
    @Test
    void snippetsAndHighlightsOfASearchInALanguageMarkTheStemmedFormsItMatched() throws Exception {
        List<SourceDocument> docs = new ArrayList<>();
        try (EuroparlSource source = EuroparlSource.open()) {
            for (SourceEntry entry = source.next(); entry != null; entry = source.next()) {
                if (entry instanceof SourceDocument doc && "de".equals(doc.value("lang"))) {
                    docs.add(doc);
                }
            }
        }
        Pattern other = Pattern.compile("\\bVerhandlung\\b");
        Pattern asked = Pattern.compile("\\bVerhandlungen\\b");
        Set<String> onlyOtherForm = docs.stream()
                .filter(doc -> other.matcher(doc.value("body")).find() && !asked.matcher(doc.value("body")).find())
                .map(SourceDocument::id).collect(Collectors.toSet());
        assertThat(onlyOtherForm).isNotEmpty();
        try (PartitionSearcher searcher = build(IndexConfig.europarl(), docs)) {
            var query = searcher.context().parsing().parse("Verhandlungen", "de");
            int[] found = searcher.search(query, SearchRequest.newBuilder().setK(1000).build(), null).build()
                    .getHitsList().stream().filter(hit -> onlyOtherForm.contains(hit.getId()))
                    .mapToInt(hit -> hit.getDoc()).toArray();
            assertThat(found).isNotEmpty();
            var highlight = io.hedgerow.common.wire.proto.HighlightSpec.newBuilder().setPreTag("[").setPostTag("]")
                    .addFields(io.hedgerow.common.wire.proto.HighlightFieldSpec.newBuilder().setField("body")
                            .setNumberOfFragments(1).setFragmentSize(200))
                    .build();
            var fetched = searcher.fetch(query, found, true, false, List.of(), highlight);
            assertThat(fetched).hasSize(found.length).allSatisfy(doc -> {
                assertThat(doc.getSnippet()).as("the snippet of %s", doc.getId()).contains("<b>Verhandlung</b>");
                assertThat(doc.getHighlightList()).as("the highlight of %s", doc.getId()).singleElement()
                        .satisfies(field -> assertThat(field.getFragmentsList()).anyMatch(f -> f.contains("[Verhandlung]")));
            });
        }
    }

    private static void assertFoundOnlyByStem(PartitionSearcher searcher, List<SourceDocument> docs, String lang,
            String queryForm, String otherForm) throws Exception {
        Pattern other = Pattern.compile("\\b" + otherForm + "\\b");
        Pattern query = Pattern.compile("\\b" + queryForm + "\\b", Pattern.CASE_INSENSITIVE);
        Set<String> onlyOtherForm = docs.stream()
                .filter(doc -> lang.equals(doc.value("lang")))
                .filter(doc -> other.matcher(doc.value("body")).find() && !query.matcher(doc.value("body")).find()
                        && !query.matcher(doc.value("title")).find())
                .map(SourceDocument::id).collect(Collectors.toSet());
        assertThat(onlyOtherForm).as("documents with '%s' but not '%s'", otherForm, queryForm).isNotEmpty();
        Set<String> stemmed = ids(searcher, queryForm, lang);
        assertThat(stemmed).containsAll(onlyOtherForm);
        assertThat(ids(searcher, queryForm, null)).as("any language: the body itself, standard-analyzed, no stemming")
                .doesNotContainAnyElementsOf(onlyOtherForm);
        assertThat(ids(searcher, "body." + lang + ":" + queryForm, null)).as("a copy named in the query stems")
                .containsAll(onlyOtherForm);
    }
}
