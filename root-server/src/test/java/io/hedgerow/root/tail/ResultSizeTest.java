package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.CacheStatus;
import io.hedgerow.api.Coverage;
import io.hedgerow.api.Hit;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.TotalHits;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ResultSizeTest {
    private static SearchResult of(Hit hit) {
        return new SearchResult(List.of(hit), new TotalHits(1, TotalHits.Relation.EQUAL_TO), 1, new Coverage(1, 1, 1.0),
                List.of(), List.of(), CacheStatus.OFF);
    }

    @Test
    void aHitsHighlightFragmentsCountTowardsItsCachedSize() {
        String fragment = "x".repeat(1000);
        long plain = ResultSize.estimatedBytes(of(new Hit("d-1", 1f, 0, Map.of(), "s", null)));
        long highlighted = ResultSize.estimatedBytes(of(new Hit("d-1", 1f, 0, Map.of(), "s", null,
                Map.of("body", List.of(fragment, fragment)))));
        assertThat(highlighted - plain).isGreaterThanOrEqualTo(2 * 2 * 1000L);
    }
}
