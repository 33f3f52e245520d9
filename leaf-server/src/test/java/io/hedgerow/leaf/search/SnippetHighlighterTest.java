package io.hedgerow.leaf.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.leaf.index.EuroparlSource;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.leaf.index.SourceEntry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.search.Query;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snippets of single-term queries come from the terms' postings, of others from the query's
 * matches: which a query gets, and that both tag what the query looks for, on real Europarl text.
 */
@Timeout(120)
class SnippetHighlighterTest {
    private static final Pattern TAG = Pattern.compile("<b>([^<]*)</b>");

    @TempDir
    static Path dir;
    private static PartitionSearcher searcher;

    @BeforeAll
    static void index() throws Exception {
        List<SourceDocument> docs = new ArrayList<>();
        try (EuroparlSource source = EuroparlSource.open()) {
            for (SourceEntry entry = source.next(); entry != null && docs.size() < 400; entry = source.next()) {
                if (entry instanceof SourceDocument doc && "en".equals(doc.value("lang"))) {
                    docs.add(doc);
                }
            }
        }
        PartitionStore store = new PartitionStore(dir.resolve("index"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(1), IndexProgress.none())
                .build(store, "index", IndexConfig.europarl(), docs);
        searcher = PartitionSearcher.open(IndexContext.of(store, store.readManifest()), 0);
    }

    @AfterAll
    static void close() throws Exception {
        searcher.close();
    }

    private static Query parse(String query) throws Exception {
        return searcher.context().parsing().parse(query, null);
    }

    @Test
    void onlyQueriesOfSingleTermsSkipTheMatches() throws Exception {
        assertThat(SnippetHighlighter.matchesSingleTermsOnly(parse("parliament vote"))).isTrue();
        assertThat(SnippetHighlighter.matchesSingleTermsOnly(parse("+parliament -vote"))).isTrue();
        assertThat(SnippetHighlighter.matchesSingleTermsOnly(parse("\"human rights\""))).isFalse();
        assertThat(SnippetHighlighter.matchesSingleTermsOnly(parse("parliament \"human rights\""))).isFalse();
        assertThat(SnippetHighlighter.matchesSingleTermsOnly(parse("parliam*"))).isFalse();
        assertThat(SnippetHighlighter.matchesSingleTermsOnly(parse("parliament -\"human rights\""))).isTrue();
    }

    @Test
    void aSingleTermQuerysSnippetsTagItsTermsEachAlone() throws Exception {
        Set<String> terms = Set.of("human", "rights", "vote");
        List<String> snippets = snippets("human rights vote");
        // A hit found by its title alone has a snippet without a tag.
        assertThat(snippets).filteredOn(snippet -> !tagged(snippet).isEmpty()).hasSizeGreaterThan(snippets.size() / 2);
        assertThat(snippets).allSatisfy(snippet -> assertThat(tagged(snippet)).as(snippet)
                .allMatch(word -> terms.contains(word.toLowerCase(Locale.ROOT))));
    }

    @Test
    void aPhraseIsTaggedAsOneSpanWhereItMatches() throws Exception {
        List<String> snippets = snippets("\"human rights\"");
        assertThat(snippets).filteredOn(snippet -> !tagged(snippet).isEmpty()).hasSizeGreaterThan(snippets.size() / 2);
        assertThat(snippets).allSatisfy(snippet -> assertThat(tagged(snippet)).as(snippet)
                .allMatch(span -> span.equalsIgnoreCase("human rights")));
    }

    private static List<String> snippets(String text) throws Exception {
        Query query = parse(text);
        int[] docs = searcher.search(query, SearchRequest.newBuilder().setK(20).build(), null).build()
                .getHitsList().stream().mapToInt(hit -> hit.getDoc()).toArray();
        return searcher.fetch(query, docs, true, false, List.of(), null).stream()
                .map(doc -> doc.getSnippet()).filter(snippet -> !snippet.isEmpty()).toList();
    }

    private static List<String> tagged(String snippet) {
        List<String> tagged = new ArrayList<>();
        Matcher matcher = TAG.matcher(snippet);
        while (matcher.find()) {
            tagged.add(matcher.group(1));
        }
        return tagged;
    }
}
