package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.common.wire.proto.FetchItem;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.FetchedDoc;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.HighlightFieldSpec;
import io.hedgerow.common.wire.proto.HighlightSpec;
import io.hedgerow.common.wire.proto.HighlightedField;
import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fetch phase names documents by their id: the leaf finds each one by a term lookup on the id
 * field, whatever doc number the root passes along, and says when the partition has no such document.
 */
class LeafFetchByIdTest {
    private static final String INDEX = "fetch-by-id";
    private static final int PARTITIONS = 2;

    @TempDir
    static Path indexParent;

    private static PartitionStore store;

    private LeafServer leaf;
    private Socket socket;
    private FrameSocket root;
    private long nextRequestId = 1;

    @BeforeAll
    static void buildIndex() throws IOException {
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            docs.add(new SourceDocument("doc-" + i, Map.of("title", "title " + i, "body", "meadow hawthorn " + i), i + 1));
        }
        // Markup in a document's own text: highlighted, it must come back as text, not as markup.
        docs.add(new SourceDocument("doc-markup", Map.of("title", "A <i>heron</i> & a \"hedge\"",
                "body", "Nothing here. The heron <script>alert(1)</script> is wide. More words follow without it. "
                        + "Then a heron again."), 61));
        store = new PartitionStore(indexParent.resolve(INDEX));
        new IndexBuilder(IndexOptions.defaults().withPartitions(PARTITIONS), IndexProgress.none())
                .build(store, INDEX, IndexConfig.defaults(), docs);
    }

    @BeforeEach
    void startLeaf() throws IOException {
        leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(1));
        socket = new Socket("127.0.0.1", leaf.port());
        socket.setSoTimeout(30_000);
        root = FrameSocket.over(socket);
        assertThat(root.hello(FrameSocket.ROOT_ID).getError()).isEmpty();
        root.send(Frame.newBuilder().setAssign(AssignPartitions.newBuilder().setRequestId(nextRequestId++)
                .setIndexName(INDEX).addAllPartitions(IntStream.range(0, PARTITIONS).boxed().toList())).build());
        assertThat(root.receive().getAssignAck().getError()).isEmpty();
    }

    @AfterEach
    void stopLeaf() throws IOException {
        socket.close();
        leaf.close();
    }

    @Test
    void findsEachDocumentByItsIdWhateverDocNumberCameWithIt() throws IOException {
        List<Hit> hits = search(0);
        assertThat(hits).hasSizeGreaterThan(2);
        FetchRequest.Builder fetch = FetchRequest.newBuilder().setQuery("meadow").setStoredFields(true);
        for (Hit hit : hits) {
            // A stale or foreign doc number: another replica's files may number documents differently.
            fetch.addItems(FetchItem.newBuilder().setPartition(0).setDoc(hits.getFirst().getDoc()).setId(hit.getId()));
        }

        FetchResponse response = fetch(fetch);

        assertThat(response.getStatus()).isEqualTo(Status.OK);
        assertThat(response.getDocsList()).extracting(FetchedDoc::getId).containsExactlyElementsOf(
                hits.stream().map(Hit::getId).toList());
        for (int i = 0; i < hits.size(); i++) {
            FetchedDoc doc = response.getDocs(i);
            assertThat(doc.getDoc()).isEqualTo(hits.get(i).getDoc());
            Map<String, String> fields = doc.getFieldsList().stream()
                    .collect(Collectors.toMap(StoredField::getName, StoredField::getValue));
            assertThat(fields.get("title")).isEqualTo("title " + hits.get(i).getId().substring("doc-".length()));
        }
    }

    @Test
    void aDocumentThePartitionDoesNotHoldComesBackWithoutIdOrFields() throws IOException {
        Hit hit = search(0).getFirst();

        FetchResponse response = fetch(FetchRequest.newBuilder().setQuery("meadow").setStoredFields(true).setSnippets(true)
                .addItems(FetchItem.newBuilder().setPartition(0).setDoc(hit.getDoc()).setId("no-such-doc"))
                .addItems(FetchItem.newBuilder().setPartition(0).setDoc(hit.getDoc()).setId(hit.getId())));

        assertThat(response.getStatus()).isEqualTo(Status.OK);
        FetchedDoc missing = response.getDocs(0);
        assertThat(missing.getId()).isEmpty();
        assertThat(missing.getDoc()).isEqualTo(-1);
        assertThat(missing.getFieldsList()).isEmpty();
        assertThat(missing.getSnippet()).isEmpty();
        FetchedDoc found = response.getDocs(1);
        assertThat(found.getId()).isEqualTo(hit.getId());
        assertThat(found.getSnippet()).contains("<b>meadow</b>");
    }

    @Test
    void aFieldListReturnsOnlyTheFieldsItNamesAndAnEmptyOneNone() throws IOException {
        Hit hit = search(0).getFirst();
        FetchItem item = FetchItem.newBuilder().setPartition(0).setDoc(hit.getDoc()).setId(hit.getId()).build();

        FetchedDoc every = fetch(FetchRequest.newBuilder().setQuery("meadow").setStoredFields(true).addItems(item)).getDocs(0);
        FetchedDoc titleOnly = fetch(FetchRequest.newBuilder().setQuery("meadow").setStoredFields(true).setSnippets(true)
                .setChooseFields(true).addFields("title").addFields("no_such_field").addItems(item)).getDocs(0);
        FetchedDoc none = fetch(FetchRequest.newBuilder().setQuery("meadow").setStoredFields(true).setSnippets(true)
                .setChooseFields(true).addItems(item)).getDocs(0);

        assertThat(every.getFieldsList()).extracting(StoredField::getName).containsExactlyInAnyOrder("title", "body");
        assertThat(titleOnly.getFieldsList()).extracting(StoredField::getName).containsExactly("title");
        assertThat(titleOnly.getFields(0).getValue()).isEqualTo("title " + hit.getId().substring("doc-".length()));
        // The snippet's field is read for the snippet, but not returned when the list leaves it out.
        assertThat(titleOnly.getSnippet()).contains("<b>meadow</b>");
        assertThat(none.getFieldsList()).isEmpty();
        assertThat(none.getSnippet()).contains("<b>meadow</b>");
        assertThat(none.getId()).isEqualTo(hit.getId());
    }

    @Test
    void highlightsTwoFieldsWithTheCallersTagsAndEscapesTheDocumentsMarkup() throws IOException {
        HighlightSpec highlight = HighlightSpec.newBuilder().setPreTag("<mark class=\"hit\">").setPostTag("</mark>")
                .addFields(HighlightFieldSpec.newBuilder().setField("title").setNumberOfFragments(0).setFragmentSize(100))
                .addFields(HighlightFieldSpec.newBuilder().setField("body").setNumberOfFragments(2).setFragmentSize(20))
                .build();
        FetchRequest.Builder request = FetchRequest.newBuilder().setQuery("heron").setStoredFields(true).setSnippets(true)
                .setHighlight(highlight);
        for (int partition = 0; partition < PARTITIONS; partition++) {
            request.addItems(FetchItem.newBuilder().setPartition(partition).setDoc(0).setId("doc-markup"));
        }

        FetchedDoc doc = fetch(request).getDocsList().stream().filter(d -> d.getDoc() >= 0).findFirst().orElseThrow();

        Map<String, List<String>> fragments = doc.getHighlightList().stream()
                .collect(Collectors.toMap(HighlightedField::getField, HighlightedField::getFragmentsList));
        assertThat(doc.getHighlightList()).extracting(HighlightedField::getField).containsExactly("title", "body");
        // number_of_fragments 0: the whole field, its markup as text and the caller's tags as markup.
        assertThat(fragments.get("title")).containsExactly(
                "A &lt;i&gt;<mark class=\"hit\">heron</mark>&lt;/i&gt; &amp; a &quot;hedge&quot;");
        // Two fragments of about a sentence each, only sentences with a match, in text order.
        assertThat(fragments.get("body")).containsExactly(
                "The <mark class=\"hit\">heron</mark> &lt;script&gt;alert(1)&lt;/script&gt; is wide.",
                "Then a <mark class=\"hit\">heron</mark> again.");
        // The snippet is as before: <b> tags, the index's snippet field.
        assertThat(doc.getSnippet()).contains("<b>heron</b>").doesNotContain("<mark");
    }

    @Test
    void withoutAHighlightNoneComesBack() throws IOException {
        Hit hit = search(0).getFirst();
        FetchedDoc doc = fetch(FetchRequest.newBuilder().setQuery("meadow").setStoredFields(true).setSnippets(true)
                .addItems(FetchItem.newBuilder().setPartition(0).setDoc(hit.getDoc()).setId(hit.getId()))).getDocs(0);
        assertThat(doc.getHighlightList()).isEmpty();
    }

    @Test
    void anItemWithoutAnIdIsFetchedByItsDocNumberAndSaysWhichDocumentItIs() throws IOException {
        Hit hit = search(1).getFirst();

        FetchResponse response = fetch(FetchRequest.newBuilder().setQuery("meadow").setStoredFields(true)
                .addItems(FetchItem.newBuilder().setPartition(1).setDoc(hit.getDoc())));

        assertThat(response.getDocs(0).getId()).isEqualTo(hit.getId());
    }

    private List<Hit> search(int partition) throws IOException {
        long requestId = nextRequestId++;
        root.send(Frame.newBuilder().setSearch(SearchRequest.newBuilder().setRequestId(requestId).setPartition(partition)
                .setQuery("meadow").setK(5)).build());
        Frame answer = root.receive();
        assertThat(answer.getResult().getRequestId()).isEqualTo(requestId);
        return answer.getResult().getHitsList();
    }

    private FetchResponse fetch(FetchRequest.Builder request) throws IOException {
        request.setRequestId(nextRequestId++);
        root.send(Frame.newBuilder().setFetch(request).build());
        Frame answer = root.receive();
        assertThat(answer.getFetchResult().getRequestId()).isEqualTo(request.getRequestId());
        return answer.getFetchResult();
    }
}
