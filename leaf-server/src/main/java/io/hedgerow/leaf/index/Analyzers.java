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
     * Language analyzers (stemming, stop words) from lucene-analysis-common, each by its ISO 639-1
     * code (per-language copies) and its English name (a config's {@code analyzer}). A language not
     * here (e.g. Polish, whose stemmer is a separate module, Slovak and Slovenian, which Lucene has
     * none for) is analyzed by the standard analyzer: see {@link #forLanguage}.
     */
    private record Language(String code, String name, Supplier<Analyzer> analyzer) {
    }

    private static final List<Language> LANGUAGE_TABLE = List.of(
            new Language("bg", "bulgarian", BulgarianAnalyzer::new),
            new Language("cs", "czech", CzechAnalyzer::new),
            new Language("da", "danish", DanishAnalyzer::new),
            new Language("de", "german", GermanAnalyzer::new),
            new Language("el", "greek", GreekAnalyzer::new),
            new Language("en", "english", EnglishAnalyzer::new),
            new Language("es", "spanish", SpanishAnalyzer::new),
            new Language("et", "estonian", EstonianAnalyzer::new),
            new Language("fi", "finnish", FinnishAnalyzer::new),
            new Language("fr", "french", FrenchAnalyzer::new),
            new Language("hu", "hungarian", HungarianAnalyzer::new),
            new Language("it", "italian", ItalianAnalyzer::new),
            new Language("lt", "lithuanian", LithuanianAnalyzer::new),
            new Language("lv", "latvian", LatvianAnalyzer::new),
            new Language("nl", "dutch", DutchAnalyzer::new),
            new Language("pt", "portuguese", PortugueseAnalyzer::new),
            new Language("ro", "romanian", RomanianAnalyzer::new),
            new Language("sv", "swedish", SwedishAnalyzer::new));
    /** Language analyzers by code. */
    private static final Map<String, Supplier<Analyzer>> LANGUAGES = languages();
    /** Analyzer names a config may use: the generic ones and each language's English name. */
    private static final Map<String, Supplier<Analyzer>> BY_NAME = byName();
    public static final List<String> NAMES = List.copyOf(BY_NAME.keySet());

    private Analyzers() {
    }

    private static Map<String, Supplier<Analyzer>> languages() {
        Map<String, Supplier<Analyzer>> map = new LinkedHashMap<>();
        for (Language language : LANGUAGE_TABLE) {
            map.put(language.code(), language.analyzer());
        }
        return Map.copyOf(map);
    }

    private static Map<String, Supplier<Analyzer>> byName() {
        Map<String, Supplier<Analyzer>> map = new LinkedHashMap<>();
        map.put("standard", StandardAnalyzer::new);
        map.put("simple", SimpleAnalyzer::new);
        map.put("whitespace", WhitespaceAnalyzer::new);
        for (Language language : LANGUAGE_TABLE) {
            map.put(language.name(), language.analyzer());
        }
        return map;
    }

    static void requireKnown(String name) {
        if (!BY_NAME.containsKey(name)) {
            throw new IllegalArgumentException("analyzer: '" + name + "' (expected one of " + NAMES + ")");
        }
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
        requireKnown(name);
        return BY_NAME.get(name).get();
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
                return config.isLanguageCopy(fieldName)
                        ? byLanguage.computeIfAbsent(fieldName.substring(fieldName.lastIndexOf('.') + 1), Analyzers::forLanguage)
                        : defaultAnalyzer;
            }
            if (spec.type() != FieldSpec.Type.TEXT) {
                return keyword;
            }
            return spec.analyzer() == null ? defaultAnalyzer : named.computeIfAbsent(spec.analyzer(), Analyzers::named);
        }
    }
}
