package io.hedgerow.leaf.index;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.DelegatingAnalyzerWrapper;
import org.apache.lucene.analysis.bg.BulgarianAnalyzer;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.analysis.core.SimpleAnalyzer;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.analysis.cz.CzechAnalyzer;
import org.apache.lucene.analysis.da.DanishAnalyzer;
import org.apache.lucene.analysis.de.GermanAnalyzer;
import org.apache.lucene.analysis.el.GreekAnalyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.es.SpanishAnalyzer;
import org.apache.lucene.analysis.et.EstonianAnalyzer;
import org.apache.lucene.analysis.fi.FinnishAnalyzer;
import org.apache.lucene.analysis.fr.FrenchAnalyzer;
import org.apache.lucene.analysis.hu.HungarianAnalyzer;
import org.apache.lucene.analysis.it.ItalianAnalyzer;
import org.apache.lucene.analysis.lt.LithuanianAnalyzer;
import org.apache.lucene.analysis.lv.LatvianAnalyzer;
import org.apache.lucene.analysis.nl.DutchAnalyzer;
import org.apache.lucene.analysis.pt.PortugueseAnalyzer;
import org.apache.lucene.analysis.ro.RomanianAnalyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.analysis.sv.SwedishAnalyzer;

/**
 * The analyzers an index config may name, the language analyzers per-language text fields use, and
 * the per-field analyzer built from a config. The same analyzer serves indexing and query parsing,
 * so they always agree.
 */
public final class Analyzers {
    /**
     * Language analyzers (stemming, stop words) by ISO 639-1 code, from lucene-analysis-common. A
     * language not here (e.g. Polish, whose stemmer is a separate module, Slovak and Slovenian, which
     * Lucene has none for) is analyzed by the standard analyzer: see {@link #forLanguage}.
     */
    private static final Map<String, Supplier<Analyzer>> LANGUAGES = languages();
    /** Analyzer names a config may use: the generic ones and each language's English name. */
    private static final Map<String, Supplier<Analyzer>> BY_NAME = byName();
    public static final List<String> NAMES = List.copyOf(BY_NAME.keySet());

    private Analyzers() {
    }

    private static Map<String, Supplier<Analyzer>> languages() {
        Map<String, Supplier<Analyzer>> map = new LinkedHashMap<>();
        map.put("bg", BulgarianAnalyzer::new);
        map.put("cs", CzechAnalyzer::new);
        map.put("da", DanishAnalyzer::new);
        map.put("de", GermanAnalyzer::new);
        map.put("el", GreekAnalyzer::new);
        map.put("en", EnglishAnalyzer::new);
        map.put("es", SpanishAnalyzer::new);
        map.put("et", EstonianAnalyzer::new);
        map.put("fi", FinnishAnalyzer::new);
        map.put("fr", FrenchAnalyzer::new);
        map.put("hu", HungarianAnalyzer::new);
        map.put("it", ItalianAnalyzer::new);
        map.put("lt", LithuanianAnalyzer::new);
        map.put("lv", LatvianAnalyzer::new);
        map.put("nl", DutchAnalyzer::new);
        map.put("pt", PortugueseAnalyzer::new);
        map.put("ro", RomanianAnalyzer::new);
        map.put("sv", SwedishAnalyzer::new);
        return Map.copyOf(map);
    }

    private static Map<String, Supplier<Analyzer>> byName() {
        Map<String, Supplier<Analyzer>> map = new LinkedHashMap<>();
        map.put("standard", StandardAnalyzer::new);
        map.put("simple", SimpleAnalyzer::new);
        map.put("whitespace", WhitespaceAnalyzer::new);
        map.put("bulgarian", BulgarianAnalyzer::new);
        map.put("czech", CzechAnalyzer::new);
        map.put("danish", DanishAnalyzer::new);
        map.put("german", GermanAnalyzer::new);
        map.put("greek", GreekAnalyzer::new);
        map.put("english", EnglishAnalyzer::new);
        map.put("spanish", SpanishAnalyzer::new);
        map.put("estonian", EstonianAnalyzer::new);
        map.put("finnish", FinnishAnalyzer::new);
        map.put("french", FrenchAnalyzer::new);
        map.put("hungarian", HungarianAnalyzer::new);
        map.put("italian", ItalianAnalyzer::new);
        map.put("lithuanian", LithuanianAnalyzer::new);
        map.put("latvian", LatvianAnalyzer::new);
        map.put("dutch", DutchAnalyzer::new);
        map.put("portuguese", PortugueseAnalyzer::new);
        map.put("romanian", RomanianAnalyzer::new);
        map.put("swedish", SwedishAnalyzer::new);
        return map;
    }

    static void requireKnown(String name) {
        if (!BY_NAME.containsKey(name)) {
            throw new IllegalArgumentException("analyzer: '" + name + "' (expected one of " + NAMES + ")");
        }
    }

    /** Whether {@code code} has a language analyzer of its own; the others fall back to standard. */
    public static boolean hasLanguageAnalyzer(String code) {
        return LANGUAGES.containsKey(code);
    }

    /** A new analyzer for {@code code}'s language: its Lucene analyzer, or the standard one. */
    public static Analyzer forLanguage(String code) {
        Supplier<Analyzer> supplier = LANGUAGES.get(code);
        return supplier == null ? new StandardAnalyzer() : supplier.get();
    }

    /** Whether {@code code} can name a per-language field ({@code body.<code>}): lower-case letters, 2 to 8. */
    public static boolean isLanguageCode(String code) {
        return code != null && code.matches("[a-z]{2,8}");
    }

    /**
     * The analyzer for an index: each text field's analyzer (its own or the index's), the language's
     * analyzer for a per-language copy {@code <field>.<lang>}, one exact token for keyword fields and
     * the id. Numeric, date and boolean fields are not analyzed (they are points and doc values).
     */
    public static Analyzer forConfig(IndexConfig config) {
        return new ConfigAnalyzer(config);
    }

    private static Analyzer named(String name) {
        Supplier<Analyzer> supplier = BY_NAME.get(name);
        if (supplier == null) {
            throw new IllegalArgumentException("analyzer: '" + name + "' (expected one of " + NAMES + ")");
        }
        return supplier.get();
    }

    /** Picks the analyzer per field name; thread-safe (analyzers are, and the caches are concurrent). */
    private static final class ConfigAnalyzer extends DelegatingAnalyzerWrapper {
        private final IndexConfig config;
        private final Analyzer defaultAnalyzer;
        private final KeywordAnalyzer keyword = new KeywordAnalyzer();
        private final Map<String, Analyzer> named = new ConcurrentHashMap<>();
        private final Map<String, Analyzer> byLanguage = new ConcurrentHashMap<>();

        ConfigAnalyzer(IndexConfig config) {
            super(PER_FIELD_REUSE_STRATEGY);
            this.config = config;
            this.defaultAnalyzer = named(config.analyzer());
        }

        @Override
        protected Analyzer getWrappedAnalyzer(String fieldName) {
            if (IndexConfig.ID_FIELD.equals(fieldName)) {
                return keyword;
            }
            FieldSpec spec = config.fields().get(fieldName);
            if (spec == null) {
                int dot = fieldName.lastIndexOf('.');
                if (dot > 0) {
                    FieldSpec base = config.fields().get(fieldName.substring(0, dot));
                    if (base != null && base.languageField() != null) {
                        return byLanguage.computeIfAbsent(fieldName.substring(dot + 1), Analyzers::forLanguage);
                    }
                }
                return defaultAnalyzer;
            }
            if (spec.type() != FieldSpec.Type.TEXT) {
                return keyword;
            }
            return spec.analyzer() == null ? defaultAnalyzer : named.computeIfAbsent(spec.analyzer(), Analyzers::named);
        }
    }
}
