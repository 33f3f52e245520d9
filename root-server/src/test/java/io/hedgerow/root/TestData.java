package io.hedgerow.root;

import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Indexes shared by the root's tests. */
public final class TestData {
    /** Built once per module build and reused by every test class that asks for it. */
    private static final Path SHARED = Path.of("target", "test-data");

    private TestData() {
    }

    /** The Europarl corpus in {@code partitions} partitions, indexed on first use. */
    public static synchronized PartitionStore europarl(int partitions) throws IOException {
        return IndexBuilder.ensureEuroparl(SHARED.resolve("europarl-" + partitions), partitions,
                new PrintStream(PrintStream.nullOutputStream()));
    }

    /**
     * Small documents with a title and a body drawn from a fixed vocabulary, the same for a given
     * seed and count.
     */
    public static List<SourceDocument> documents(long seed, int count) {
        String[] words = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
                "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"};
        Random random = new Random(seed);
        List<SourceDocument> documents = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put("title", words[random.nextInt(words.length)] + " " + words[random.nextInt(words.length)]);
            StringBuilder body = new StringBuilder();
            int length = 5 + random.nextInt(30);
            for (int w = 0; w < length; w++) {
                // Skewed, so some words are common and some rare, as in real text.
                int index = (int) Math.min(words.length - 1, Math.abs(random.nextGaussian()) * 6);
                body.append(words[index]).append(w % 9 == 8 ? ". " : " ");
            }
            fields.put("body", body.toString().trim());
            documents.add(new SourceDocument("doc-" + i, fields, i + 1));
        }
        return documents;
    }
}
