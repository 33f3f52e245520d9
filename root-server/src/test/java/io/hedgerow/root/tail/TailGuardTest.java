package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.CacheStatus;
import io.hedgerow.api.Coverage;
import io.hedgerow.api.Hit;
import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.TotalHits;
import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.root.hedge.HedgeDelay;
import io.hedgerow.root.hedge.HedgeSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TailGuardTest {
    private final ManualTicker ticker = new ManualTicker();

    private TailGuard guard(TailSettings settings) {
        return new TailGuard(settings, new HedgeDelay(HedgeSettings.defaults(), ticker), ticker);
    }

    private static SearchResult result(int answered) {
        List<PartitionError> missing = answered == 4 ? List.of()
                : List.of(new PartitionError(3, PartitionError.Kind.CANCELLED, null, "cut off"));
        return new SearchResult(List.of(new Hit("d1", 1f, 0, Map.of(), null)), new TotalHits(1, TotalHits.Relation.EQUAL_TO),
                1_000_000, new Coverage(4, answered, answered / 4.0), missing, List.of(), CacheStatus.OFF);
    }

    @Test
    void aDangerousQueryIsRefusedUntilItsEntryExpires() {
        TailGuard guard = guard(TailSettings.defaults().withBlocklist(Duration.ofMinutes(1), 10));
        TailGuard.Run run = (TailGuard.Run) guard.admit(SearchRequest.of("a AND b"), ticker.nanoTime());
        assertThat(run.canaries()).isEqualTo(1);

        SearchException failure = guard.dangerous(run, Blocklist.Reason.CANARY_CONNECTION_LOST, "was out on leaf x");
        assertThat(failure.kind()).isEqualTo(SearchException.Kind.DANGEROUS);
        assertThat(failure.getMessage()).contains("was out on leaf x", "blocklisted for 1m", run.fingerprint().id());

        ticker.advance(Duration.ofSeconds(59));
        assertThat(guard.admit(SearchRequest.of("b && a"), ticker.nanoTime())).isInstanceOfSatisfying(TailGuard.Refused.class,
                refused -> assertThat(refused.reason().getMessage()).contains("expires in 1s"));
        ticker.advance(Duration.ofSeconds(1));
        assertThat(guard.admit(SearchRequest.of("b && a"), ticker.nanoTime())).isInstanceOf(TailGuard.Run.class);
        assertThat(guard.failed(run, failure, 1)).as("a dangerous query is never served from the cache").isNull();
    }

    @Test
    void servesCompleteResultsFromTheCacheAndRunsAfterATaintedOne() {
        TailGuard guard = guard(TailSettings.defaults());
        SearchRequest request = SearchRequest.of("a OR b");
        TailGuard.Run first = (TailGuard.Run) guard.admit(request, ticker.nanoTime());
        assertThat(guard.served(first, result(3), true).cache()).isEqualTo(CacheStatus.MISS);

        TailGuard.Run second = (TailGuard.Run) guard.admit(request, ticker.nanoTime());
        assertThat(second.lookup()).isInstanceOf(ResultCache.TaintedEntry.class);
        SearchResult refreshed = guard.served(second, result(4), true);
        assertThat(refreshed.cache()).isEqualTo(CacheStatus.REFRESHED);
        assertThat(refreshed.tainted()).isFalse();

        long start = ticker.nanoTime();
        ticker.advance(Duration.ofNanos(2_000));
        assertThat(guard.admit(request, start)).isInstanceOfSatisfying(TailGuard.Served.class, served -> {
            assertThat(served.result().cache()).isEqualTo(CacheStatus.HIT);
            assertThat(served.result().tookNanos()).isEqualTo(2_000);
        });
        assertThat(guard.admit(SearchRequest.builder("a OR b").cache(false).build(), start))
                .isInstanceOfSatisfying(TailGuard.Run.class, run -> assertThat(run.lookup()).isNull());
        assertThat(guard.admit(SearchRequest.builder("a OR b").explain(true).build(), start))
                .as("an explained query runs").isInstanceOf(TailGuard.Run.class);
    }

    @Test
    void aKnownSafeQuerySkipsItsCanaryUnlessTurnedOff() {
        TailGuard always = guard(TailSettings.defaults().withSkipKnownSafe(false).withCache(Duration.ofSeconds(1), 0, 1));
        TailGuard.Run run = (TailGuard.Run) always.admit(SearchRequest.of("x"), ticker.nanoTime());
        always.served(run, result(4), true);
        assertThat(((TailGuard.Run) always.admit(SearchRequest.of("x"), ticker.nanoTime())).canaries()).isEqualTo(1);

        TailGuard skipping = guard(TailSettings.defaults().withCache(Duration.ofSeconds(1), 0, 1));
        TailGuard.Run canaried = (TailGuard.Run) skipping.admit(SearchRequest.of("x"), ticker.nanoTime());
        assertThat(canaried.canaries()).isEqualTo(1);
        skipping.served(canaried, result(4), true);
        assertThat(((TailGuard.Run) skipping.admit(SearchRequest.of("x"), ticker.nanoTime())).canaries()).isZero();
        assertThat(((TailGuard.Run) skipping.admit(SearchRequest.builder("x").minCoverage(0.5).build(), ticker.nanoTime()))
                .minCoverage()).isEqualTo(0.5);
    }

    @Test
    void aKnownSafeQuerysReSpellingSkipsItsCanaryButAQuerySharingATermDoesNot() {
        TailGuard guard = guard(TailSettings.defaults().withCache(Duration.ofSeconds(1), 0, 1));
        TailGuard.Run canaried = (TailGuard.Run) guard.admit(SearchRequest.of("fishing AND quota"), ticker.nanoTime());
        assertThat(canaried.canaries()).isEqualTo(1);
        guard.served(canaried, result(4), true);

        assertThat(((TailGuard.Run) guard.admit(SearchRequest.of("quota && fishing"), ticker.nanoTime())).canaries())
                .as("a re-spelling of the query seen safe").isZero();
        assertThat(((TailGuard.Run) guard.admit(SearchRequest.of("fishing AND boats"), ticker.nanoTime())).canaries())
                .as("a query sharing a term with it").isEqualTo(1);
        ticker.advance(Duration.ofMinutes(59));
        assertThat(((TailGuard.Run) guard.admit(SearchRequest.of("fishing AND quota"), ticker.nanoTime())).canaries())
                .as("still known safe after 59 minutes (the default hour)").isZero();
    }

    @Test
    void aQueryOfDeathAndItsReSpellingsAreRefusedOnceBlocklistedWhateverTheKnownSafeSetHolds() {
        TailGuard guard = guard(TailSettings.defaults().withCache(Duration.ofSeconds(1), 0, 1));
        TailGuard.Run safe = (TailGuard.Run) guard.admit(SearchRequest.of("fishing"), ticker.nanoTime());
        guard.served(safe, result(4), true);
        TailGuard.Run deadly = (TailGuard.Run) guard.admit(SearchRequest.of("fishing AND quota"), ticker.nanoTime());
        assertThat(deadly.canaries()).as("sharing a term with a safe query is not safe").isEqualTo(1);
        guard.dangerous(deadly, Blocklist.Reason.CANARY_CONNECTION_LOST, "lost on two leaves");

        assertThat(guard.admit(SearchRequest.of("quota && fishing"), ticker.nanoTime())).isInstanceOf(TailGuard.Refused.class);
        assertThat(guard.admit(SearchRequest.of("+fishing +quota"), ticker.nanoTime())).isInstanceOf(TailGuard.Refused.class);
        assertThat(((TailGuard.Run) guard.admit(SearchRequest.of("fishing"), ticker.nanoTime())).canaries()).isZero();
    }

    @Test
    void aCanaryTimeoutBlocklistsOnItsSecondStrikeWithinTheTtlAndALostConnectionAtOnce() {
        TailGuard guard = guard(TailSettings.defaults());
        TailGuard.Run slow = (TailGuard.Run) guard.admit(SearchRequest.of("slow"), ticker.nanoTime());
        assertThat(guard.dangerous(slow, Blocklist.Reason.CANARY_TIMED_OUT, "timed out on a and b").getMessage())
                .contains("not blocklisted the first time");
        assertThat(guard.blocklist().isBlocked(slow.fingerprint())).isFalse();
        assertThat(guard.dangerous(slow, Blocklist.Reason.CANARY_TIMED_OUT, "timed out on a and c").getMessage())
                .contains("blocklisted for 10m");
        assertThat(guard.blocklist().isBlocked(slow.fingerprint())).isTrue();

        TailGuard.Run other = (TailGuard.Run) guard.admit(SearchRequest.of("other"), ticker.nanoTime());
        guard.dangerous(other, Blocklist.Reason.CANARY_TIMED_OUT, "timed out");
        ticker.advance(Duration.ofMinutes(11));
        guard.dangerous(other, Blocklist.Reason.CANARY_TIMED_OUT, "timed out");
        assertThat(guard.blocklist().isBlocked(other.fingerprint())).as("the first strike expired").isFalse();

        TailGuard.Run crash = (TailGuard.Run) guard.admit(SearchRequest.of("crash"), ticker.nanoTime());
        guard.dangerous(crash, Blocklist.Reason.CANARY_CONNECTION_LOST, "lost on a and b");
        assertThat(guard.blocklist().isBlocked(crash.fingerprint())).isTrue();
    }

    @Test
    void aQueryThatDoesNotParseIsRefusedAsABadQueryBeforeAnyLeaf() {
        TailGuard guard = guard(TailSettings.defaults());
        assertThat(guard.admit(SearchRequest.of("title:(foo"), ticker.nanoTime()))
                .isInstanceOfSatisfying(TailGuard.Refused.class, refused -> {
                    assertThat(refused.reason().kind()).isEqualTo(SearchException.Kind.BAD_QUERY);
                    assertThat(refused.reason().getMessage()).startsWith("Cannot parse 'title:(foo'");
                });
        // Also with canaries and the cache off: the parse is what refuses it.
        TailGuard bare = guard(TailSettings.defaults().withCanaries(0).withCache(Duration.ofSeconds(1), 0, 1));
        assertThat(bare.admit(SearchRequest.of("title:(foo"), ticker.nanoTime())).isInstanceOf(TailGuard.Refused.class);
        assertThat(bare.admit(SearchRequest.of("b a"), ticker.nanoTime())).isInstanceOfSatisfying(TailGuard.Run.class,
                run -> assertThat(run.fingerprint()).isEqualTo(bare.fingerprint("a b")));
    }

    @Test
    void aRootThatCannotParseYetRefusesAsUnavailable() {
        TailGuard guard = new TailGuard(TailSettings.defaults(), new HedgeDelay(HedgeSettings.defaults(), ticker), ticker,
                text -> {
                    throw new SearchException(SearchException.Kind.UNAVAILABLE, "no leaf has answered");
                });
        assertThat(guard.admit(SearchRequest.of("vote"), ticker.nanoTime())).isInstanceOfSatisfying(
                TailGuard.Refused.class, refused -> assertThat(refused.reason().kind())
                        .isEqualTo(SearchException.Kind.UNAVAILABLE));
    }

    @Test
    void aRunStartedBeforeTheCacheWasClearedDoesNotRefillIt() {
        TailGuard guard = guard(TailSettings.defaults());
        SearchRequest request = SearchRequest.of("a OR b");
        TailGuard.Run before = (TailGuard.Run) guard.admit(request, ticker.nanoTime());
        guard.cache().invalidateAll();
        assertThat(guard.served(before, result(4), true).cache()).isEqualTo(CacheStatus.MISS);
        assertThat(guard.admit(request, ticker.nanoTime())).as("nothing stored after the clear")
                .isInstanceOf(TailGuard.Run.class);
    }
}
