package io.hedgerow.root.http;

import io.hedgerow.api.SearchRequest;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexManifest;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The fields of the served index, as a search request may name them: which exist, and which are
 * text (to highlight). Read from the index's manifest, which is null until a leaf told it; with no
 * manifest every name passes, since a search then fails anyway, for want of leaves.
 */
final class ServedFields {
    private final Supplier<IndexManifest> index;

    ServedFields(Supplier<IndexManifest> index) {
        this.index = index;
    }

    /** Whether documents of the served index may have {@code field} as text (true with no index told yet). */
    boolean isText(String field) {
        return isText(index.get(), field);
    }

    private static boolean isText(IndexManifest manifest, String field) {
        return manifest == null || manifest.config().typeOf(field) == FieldSpec.Type.TEXT;
    }

    /** The text fields documents have, without their per-language copies: a hint for an error message. */
    List<String> textFields() {
        IndexManifest manifest = index.get();
        return manifest == null ? List.of() : manifest.fieldsSeen().stream()
                .filter(field -> !manifest.config().isLanguageCopy(field) && isText(manifest, field)).toList();
    }

    /**
     * Refuses a {@code lang} naming a language the served index has no copy of (a per-language field
     * {@code body.de} in its {@code fields_seen}), naming it and the languages it has; {@code *}
     * and no language always pass, as does anything before a leaf told the index, and on an index
     * without per-language fields, where {@code lang} changes nothing.
     */
    void requireKnownLanguages(List<String> languages) throws ApiException {
        IndexManifest manifest = index.get();
        if (manifest == null || languages.isEmpty() || languages.equals(List.of(SearchRequest.ALL_LANGUAGES))
                || manifest.config().fields().values().stream().noneMatch(spec -> spec.languageField() != null)) {
            return;
        }
        List<String> known = manifest.config().languagesSeen(manifest.fieldsSeen());
        List<String> unknown = languages.stream().filter(language -> !known.contains(language)).toList();
        if (!unknown.isEmpty()) {
            throw ApiException.badRequest("lang: unknown " + (unknown.size() == 1 ? "language " : "languages ")
                    + String.join(", ", unknown) + " (expected: languages of the index: "
                    + (known.isEmpty() ? "none, it has no per-language fields" : String.join(", ", known))
                    + "; or * for all of them)");
        }
    }

    /** Refuses the names documents of the served index cannot have, naming all of them at once. */
    void requireKnown(List<String> fields) throws ApiException {
        IndexManifest manifest = index.get();
        if (manifest == null) {
            return;
        }
        IndexConfig config = manifest.config();
        List<String> unknown = null;
        for (String field : fields) {
            if (!IndexConfig.ID_FIELD.equals(field) && config.specOf(field) == null
                    && !manifest.fieldsSeen().contains(field)) {
                if (unknown == null) {
                    unknown = new ArrayList<>();
                }
                unknown.add(field);
            }
        }
        if (unknown != null) {
            // The hint names the fields a document has, not their per-language copies (body.de).
            List<String> known = manifest.fieldsSeen().stream().filter(field -> !config.isLanguageCopy(field)).toList();
            throw ApiException.badRequest("fields: unknown " + (unknown.size() == 1 ? "field " : "fields ")
                    + String.join(", ", unknown) + " (expected: fields of the index: " + String.join(", ", known) + ")");
        }
    }
}
