package io.hedgerow.leaf.index;

import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.analysis.core.SimpleAnalyzer;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.miscellaneous.PerFieldAnalyzerWrapper;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import java.util.HashMap;
import java.util.Map;

/** The analyzers an index config may name, and the per-field analyzer built from a config. */
public final class Analyzers {
    public static final List<String> NAMES = List.of("standard", "english", "simple", "whitespace");

    private Analyzers() {
    }

    static void requireKnown(String name) {
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("analyzer: '" + name + "' (expected one of " + NAMES + ")");
        }
    }

    /**
     * The analyzer for an index: the named analyzer for text fields, one exact token for keyword
     * fields and the id. Used both when indexing and when parsing queries, so they always agree.
     */
    public static Analyzer forConfig(IndexConfig config) {
        Map<String, Analyzer> perField = new HashMap<>();
        KeywordAnalyzer keyword = new KeywordAnalyzer();
        perField.put(IndexConfig.ID_FIELD, keyword);
        config.fields().forEach((name, spec) -> {
            if (spec.type() == FieldSpec.Type.KEYWORD) {
                perField.put(name, keyword);
            }
        });
        return new PerFieldAnalyzerWrapper(named(config.analyzer()), perField);
    }

    private static Analyzer named(String name) {
        return switch (name) {
            case "standard" -> new StandardAnalyzer();
            case "english" -> new EnglishAnalyzer();
            case "simple" -> new SimpleAnalyzer();
            case "whitespace" -> new WhitespaceAnalyzer();
            default -> throw new IllegalArgumentException("analyzer: '" + name + "' (expected one of " + NAMES + ")");
        };
    }
}
