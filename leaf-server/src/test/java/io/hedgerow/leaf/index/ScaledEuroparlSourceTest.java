package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The real corpus is loaded once for the class: it takes a second or two. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScaledEuroparlSourceTest {
    private static final int D = EuroparlSource.DOC_COUNT;

    private EuroparlRecombiner europarl;

    @BeforeAll
    void loadTheCorpus() throws IOException {
        europarl = EuroparlRecombiner.load();
    }

    @Test
    void copyZeroIsThePlainCorpusWithItsIds() throws IOException {
        List<SourceEntry> plain = JsonlSourceTest.readAll(EuroparlSource.open());
        ScaledEuroparlSource scaled = new ScaledEuroparlSource(europarl, 2);

        for (SourceEntry original : plain) {
            assertThat(scaled.next()).isEqualTo(original);
        }
        assertThat(((SourceDocument) scaled.next()).id()).isEqualTo("17598");
    }

    @Test
    void yieldsTheCorpusSizeTimesTheScaleWithUniqueIdsThatCountUp() {
        ScaledEuroparlSource source = new ScaledEuroparlSource(europarl, 3);
        assertThat(source.expectedDocs()).hasValue(3L * D);
        assertThat(source.scale()).isEqualTo(3);
        assertThat(source.name()).isEqualTo("europarl-x3");

        Set<String> ids = new HashSet<>();
        long count = 0;
        for (SourceEntry entry = source.next(); entry != null; entry = source.next()) {
            count++;
            SourceDocument doc = (SourceDocument) entry;
            assertThat(doc.id()).isEqualTo(Long.toString(count));
            assertThat(doc.lineNumber()).isEqualTo(count);
            assertThat(doc.fields().keySet()).containsExactly("title", "date", "body", "lang", "body_length");
            ids.add(doc.id());
        }

        assertThat(count).isEqualTo(52_791);
        assertThat(ids).hasSize(52_791);
        assertThat(source.next()).isNull();
    }

    @Test
    void theSameIdIsTheSameDocumentInEverySourceAndAtEveryScale() throws IOException {
        EuroparlRecombiner loadedAgain = EuroparlRecombiner.load();
        ScaledEuroparlSource two = new ScaledEuroparlSource(europarl, 2);
        ScaledEuroparlSource three = new ScaledEuroparlSource(loadedAgain, 3);

        for (SourceEntry entry = two.next(); entry != null; entry = two.next()) {
            assertThat(three.next()).isEqualTo(entry);
        }
        assertThat(((SourceDocument) three.next()).id()).isEqualTo("35195");
    }

    /**
     * Pins the documents themselves, so that they stay the same on every machine and JDK (a
     * different logarithm, random generator or hash order would change them). If you change how
     * documents are made on purpose, update the digest and say so: indexes built before differ.
     * The digest covers title, date and body; a copy's {@code lang} is its original's.
     */
    @Test
    void theFirstRecombinedDocumentsAreExactlyThePinnedOnes() throws NoSuchAlgorithmException {
        MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
        for (long n = D + 1; n <= D + 200; n++) {
            SourceDocument doc = (SourceDocument) europarl.entry(n);
            Map<String, String> text = new LinkedHashMap<>(doc.singleValued());
            String language = text.remove("lang");
            assertThat(text.remove("body_length")).isEqualTo(Integer.toString(text.get("body").length()));
            assertThat(language).isEqualTo(((SourceDocument) europarl.entry(n - D)).value("lang"));
            sha256.update((doc.id() + "\t" + text + "\n").getBytes(StandardCharsets.UTF_8));
        }

        assertThat(HexFormat.of().formatHex(sha256.digest())).isEqualTo(PINNED_DIGEST);
    }

    private static final String PINNED_DIGEST = "a34c57a375fcc8edbbff0859fff3f593b7913651640774dcbc8813627a9015a3";

    @Test
    void copiesAreMadeOfWholeRealSentencesOfTheirOriginalsLanguage() {
        for (long n = D + 1; n <= D + 3_000; n++) {
            int doc = (int) ((n - 1) % D);
            SourceDocument original = (SourceDocument) europarl.original(doc);
            SourceDocument copy = (SourceDocument) europarl.entry(n);
            EuroparlRecombiner.Recombination made = europarl.recombine(n);

            assertThat(copy.value("date")).isEqualTo(original.value("date"));
            String body = original.value("body");
            assertThat(made.sentences()).as("doc %d", n).hasSize(SentenceSplitter.sentences(body).length / 2);
            assertThat(copy.value("body")).isEqualTo(String.join(" ",
                    made.sentences().stream().map(EuroparlRecombiner.Piece::text).toList()));
            for (EuroparlRecombiner.Piece sentence : made.sentences()) {
                assertIsAWholePieceOf(((SourceDocument) europarl.original(sentence.doc())).value("body"), sentence.text());
                assertThat(europarl.languageOf(sentence.doc())).as("language of a sentence of doc %d", n)
                        .isEqualTo(europarl.languageOf(doc));
            }
            assertThat(made.titleParts()).hasSize(EuroparlRecombiner.titleParts(original.value("title")).length / 2);
            for (EuroparlRecombiner.Piece part : made.titleParts()) {
                assertThat(((SourceDocument) europarl.original(part.doc())).value("title")).contains(part.text());
                assertThat(europarl.languageOf(part.doc())).isEqualTo(europarl.languageOf(doc));
            }
        }
    }

    @Test
    void copiesDifferFromTheirOriginalAndFromEachOther() {
        Set<String> bodies = new HashSet<>();
        int copiesOfDoc4501 = 0;
        for (long n = 4_501; n <= 10L * D; n += D) {
            bodies.add(((SourceDocument) europarl.entry(n)).value("body"));
            copiesOfDoc4501++;
        }
        assertThat(bodies).hasSize(copiesOfDoc4501);
    }

    @Test
    void guessesTheLanguagesOfEuroparl() {
        Map<Integer, String> known = Map.ofEntries(Map.entry(1, "it"), Map.entry(2, "sv"), Map.entry(3, "de"),
                Map.entry(1501, "es"), Map.entry(3001, "pt"), Map.entry(4501, "en"), Map.entry(6001, "fr"),
                Map.entry(7501, "el"), Map.entry(12001, "hu"), Map.entry(13501, "ro"), Map.entry(15001, "nl"));
        known.forEach((line, language) ->
                assertThat(LanguageGuesser.LANGUAGES.get(europarl.languageOf(line - 1))).as("line %d", line).isEqualTo(language));

        int[] docsPerLanguage = new int[LanguageGuesser.UNDETERMINED + 1];
        for (int doc = 0; doc < D; doc++) {
            docsPerLanguage[europarl.languageOf(doc)]++;
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (int l = 0; l < LanguageGuesser.UNDETERMINED; l++) {
            counts.put(LanguageGuesser.LANGUAGES.get(l), docsPerLanguage[l]);
        }
        // The sample holds the eleven older EU languages about 1,000 to 1,500 times each, the ten
        // that joined in 2004 and 2007 about 250 to 400 times each.
        assertThat(counts.values()).as("docs per language: %s", counts).allMatch(count -> count >= 200 && count <= 1_600);
        assertThat(docsPerLanguage[LanguageGuesser.UNDETERMINED]).isLessThan(20);
    }

    @Test
    void aBadLineStaysBadInEveryCopyAndEmptyPiecesKeepTheOriginal() {
        EuroparlRecombiner small = new EuroparlRecombiner(List.of(
                doc(1, "Votes - Agenda", "The report is adopted. The vote will take place tomorrow."),
                new BadLine(2, "expected 3 tab-separated columns (title, date, body), got 1"),
                doc(3, "", "")));

        assertThat(small.entry(5)).isEqualTo(new BadLine(5, "expected 3 tab-separated columns (title, date, body), got 1"));
        SourceDocument copyOfFirst = (SourceDocument) small.entry(4);
        assertThat(copyOfFirst.id()).isEqualTo("4");
        assertThat(copyOfFirst.value("title").split(" - ")).hasSize(2);
        SourceDocument copyOfThird = (SourceDocument) small.entry(6);
        assertThat(copyOfThird.value("title")).isEmpty();
        assertThat(copyOfThird.value("body")).isEmpty();
    }

    @Test
    void scaleOutOfRangeIsRefused() {
        assertThatThrownBy(() -> new ScaledEuroparlSource(europarl, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("scale: 0 (expected: 1..10000)");
        assertThatThrownBy(() -> ScaledEuroparlSource.open(10_001))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("scale: 10001 (expected: 1..10000)");
        assertThat(Corpus.EUROPARL.indexName(1)).isEqualTo("europarl");
        assertThat(Corpus.EUROPARL.indexName(60)).isEqualTo("europarl-x60");
    }

    /** {@code piece} occurs in {@code text} starting at its start or after white space, and ending at its end or before white space. */
    private static void assertIsAWholePieceOf(String text, String piece) {
        assertThat(piece).isNotBlank().isEqualTo(piece.strip());
        for (int at = text.indexOf(piece); at >= 0; at = text.indexOf(piece, at + 1)) {
            int end = at + piece.length();
            if ((at == 0 || Character.isWhitespace(text.charAt(at - 1)))
                    && (end == text.length() || Character.isWhitespace(text.charAt(end)))) {
                return;
            }
        }
        throw new AssertionError("'" + piece + "' is not a whole sentence of: " + text);
    }

    private static SourceDocument doc(long line, String title, String body) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("title", title);
        fields.put("date", "2004-03-30");
        fields.put("body", body);
        fields.put("lang", "en");
        return new SourceDocument(Long.toString(line), fields, line);
    }
}
