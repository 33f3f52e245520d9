package io.hedgerow.root.tail;

import io.hedgerow.api.SearchRequest;
import io.hedgerow.leaf.search.BadQueryException;

/** Fingerprints for tests of the tail policies, parsed as an index of title and body fields would parse them. */
final class Fingerprints {
    private static final IndexQueryParser PARSER = IndexQueryParser.standard();

    private Fingerprints() {
    }

    static QueryFingerprint of(String query) {
        try {
            return QueryFingerprint.of(PARSER.parse(query));
        } catch (BadQueryException e) {
            throw new IllegalArgumentException("query <" + query + ">: " + e.getMessage(), e);
        }
    }

    static CacheKey key(SearchRequest request) {
        return CacheKey.of(of(request.query()), request);
    }
}
