package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.root.api.SearchRequest;
import io.hedgerow.root.hedge.HedgeMode;
import org.junit.jupiter.api.Test;

class CacheKeyTest {

    @Test
    void ignoresHedgingTimeoutAndExplainAndSpelling() {
        CacheKey plain = CacheKey.of(SearchRequest.of("european parliament"));
        CacheKey other = CacheKey.of(SearchRequest.builder(" european   parliament ")
                .hedge(HedgeMode.TIED).timeoutMillis(50).explain(true).build());
        assertThat(other).isEqualTo(plain);
        assertThat(CacheKey.of(SearchRequest.builder("european parliament").hedgeAfterMillis(5).build())).isEqualTo(plain);
    }

    @Test
    void distinguishesWhatChangesAResult() {
        CacheKey plain = CacheKey.of(SearchRequest.of("european parliament"));
        SearchRequest.Builder base = SearchRequest.builder("european parliament");
        assertThat(CacheKey.of(SearchRequest.of("european parliament", 20))).isNotEqualTo(plain);
        assertThat(CacheKey.of(base.snippets(false).build())).isNotEqualTo(plain);
        assertThat(CacheKey.of(SearchRequest.builder("european parliament").storedFields(false).build())).isNotEqualTo(plain);
        assertThat(CacheKey.of(SearchRequest.builder("european parliament").totalHitsThreshold(10).build())).isNotEqualTo(plain);
        assertThat(CacheKey.of(SearchRequest.of("european parliaments"))).isNotEqualTo(plain);
    }

    @Test
    void reusesAFingerprintMadeAlready() {
        SearchRequest request = SearchRequest.of("b AND a", 5);
        QueryFingerprint fingerprint = QueryFingerprint.of(request.query());
        assertThat(CacheKey.of(fingerprint, request)).isEqualTo(CacheKey.of(request));
        assertThat(CacheKey.of(request)).isEqualTo(new CacheKey(new QueryFingerprint("a AND b"), 5, true, true,
                SearchRequest.DEFAULT_TOTAL_HITS_THRESHOLD));
        assertThatThrownBy(() -> new CacheKey(fingerprint, 0, true, true, 1)).hasMessage("k: 0 (expected: >= 1)");
    }
}
