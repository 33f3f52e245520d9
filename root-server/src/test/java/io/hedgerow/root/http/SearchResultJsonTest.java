package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.api.CacheStatus;
import io.hedgerow.api.Coverage;
import io.hedgerow.api.Hit;
import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.TotalHits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How a search result reads in JSON: a degraded answer says so at its top and in its coverage. */
@Timeout(10)
class SearchResultJsonTest {

    private static JsonNode json(SearchResult result) throws Exception {
        ByteBuf body = JsonResponses.searchResult(UnpooledByteBufAllocator.DEFAULT, result, "test-1", false);
        try {
            return new ObjectMapper().readTree(body.toString(StandardCharsets.UTF_8));
        } finally {
            body.release();
        }
    }

    private static SearchResult result(Coverage coverage, List<PartitionError> errors) {
        return new SearchResult(List.of(new Hit("7", 2.5f, 3, Map.of(), null)),
                new TotalHits(9, TotalHits.Relation.EQUAL_TO), 1_000_000, coverage, errors, List.of(), CacheStatus.OFF);
    }

    @Test
    void aResultWhoseFetchFailedIsCompleteButDegradedAtItsTop() throws Exception {
        SearchResult result = result(new Coverage(4, 4, 1.0, Set.of(Coverage.Degradation.FETCH_FAILED)),
                List.of(new PartitionError(3, PartitionError.Kind.FETCH_FAILED, null, "details of hit 7: busy")));

        JsonNode json = json(result);

        assertThat(json.get("tainted").asBoolean()).isFalse();
        assertThat(json.get("degraded").asBoolean()).isTrue();
        assertThat(json.get("coverage").get("degraded")).extracting(JsonNode::asText).containsExactly("fetch_failed");
        assertThat(json.get("errors").get(0).get("kind").asText()).isEqualTo("fetch_failed");
    }

    @Test
    void reasonsComeInOneOrderAndAResultAsAskedIsNotDegraded() throws Exception {
        JsonNode both = json(result(new Coverage(4, 3, 0.75,
                Set.of(Coverage.Degradation.STALE_COPY, Coverage.Degradation.FETCH_FAILED)), List.of()));
        assertThat(both.get("degraded").asBoolean()).isTrue();
        assertThat(both.get("coverage").get("degraded")).extracting(JsonNode::asText)
                .containsExactly("fetch_failed", "stale_copy");

        JsonNode plain = json(result(new Coverage(4, 4, 1.0), List.of()));
        assertThat(plain.get("degraded").asBoolean()).isFalse();
        assertThat(plain.get("coverage").has("degraded")).as("the reasons only when there are some").isFalse();
    }
}
