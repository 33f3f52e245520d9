package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.root.tail.Blocklist.Entry;
import io.hedgerow.root.tail.Blocklist.Reason;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class BlocklistTest {
    private static final long S = 1_000_000_000L;

    private final ManualTicker ticker = new ManualTicker();
    private final Blocklist blocklist = new Blocklist(TailSettings.defaults(), ticker); // 10 minutes

    private static QueryFingerprint fp(String query) {
        return Fingerprints.of(query);
    }

    @Test
    void blocksEverySpellingOfTheQueryUntilTheTtlPasses() {
        Entry entry = blocklist.block(fp("kill leaf"), Reason.CANARY_CONNECTION_LOST, "leaf 2 closed the connection");
        assertThat(entry.blockedAtNanos()).isZero();
        assertThat(blocklist.isBlocked(fp(" kill   leaf "))).isTrue();
        assertThat(blocklist.isBlocked(fp("kill"))).isFalse();
        assertThat(blocklist.entry(fp("kill leaf"))).isEqualTo(entry);
        assertThat(blocklist.entry(fp("kill"))).isNull();

        ticker.advance(Duration.ofMinutes(10).minusNanos(1));
        assertThat(blocklist.isBlocked(fp("kill leaf"))).isTrue();
        assertThat(blocklist.expiresInNanos(entry)).isEqualTo(1);
        ticker.advanceMillis(1);
        assertThat(blocklist.isBlocked(fp("kill leaf"))).isFalse();
        assertThat(blocklist.expiresInNanos(entry)).isZero();
        assertThat(blocklist.size()).isZero();
        assertThat(blocklist.blockedTotal()).isEqualTo(1);
    }

    @Test
    void blockingAgainRestartsTheTtl() {
        blocklist.block(fp("kill"), Reason.CANARY_TIMED_OUT, "no answer from leaf 0 in 60 ms");
        ticker.advance(Duration.ofMinutes(9));
        Entry again = blocklist.block(fp("kill"), Reason.CANARY_CONNECTION_LOST, "leaf 1 closed the connection");
        ticker.advance(Duration.ofMinutes(9));
        assertThat(blocklist.entry(fp("kill"))).isEqualTo(again);
        assertThat(blocklist.ageNanos(again)).isEqualTo(9 * 60 * S);
        assertThat(blocklist.blockedTotal()).isEqualTo(2);
        ticker.advance(Duration.ofMinutes(1));
        assertThat(blocklist.isBlocked(fp("kill"))).isFalse();
    }

    @Test
    void listsNewestFirstAndClears() {
        Entry first = blocklist.block(fp("a"), Reason.CANARY_TIMED_OUT, "t");
        ticker.advance(Duration.ofSeconds(1));
        Entry second = blocklist.block(fp("b"), Reason.CANARY_CONNECTION_LOST, "c");
        assertThat(blocklist.list()).containsExactly(second, first);
        assertThat(blocklist.ageNanos(first)).isEqualTo(S);

        assertThat(blocklist.remove(fp("a"))).isTrue();
        assertThat(blocklist.remove(fp("a"))).isFalse();
        assertThat(blocklist.list()).containsExactly(second);

        blocklist.block(fp("c"), Reason.CANARY_TIMED_OUT, "t");
        assertThat(blocklist.removeById(fp("c").id())).isTrue();
        assertThat(blocklist.removeById(fp("c").id())).isFalse();

        blocklist.block(fp("d"), Reason.CANARY_TIMED_OUT, "t");
        assertThat(blocklist.clear()).isEqualTo(2);
        assertThat(blocklist.list()).isEmpty();
        assertThat(blocklist.isBlocked(fp("b"))).isFalse();
    }

    @Test
    void holdsNoMoreThanItsBound() {
        Blocklist small = new Blocklist(TailSettings.defaults().withBlocklist(Duration.ofMinutes(10), 3), ticker);
        for (int i = 0; i < 20; i++) {
            small.block(fp("q" + i), Reason.CANARY_TIMED_OUT, "t");
        }
        assertThat(small.size()).isLessThanOrEqualTo(3);
        assertThat(small.list()).hasSizeLessThanOrEqualTo(3);
    }

    @Test
    void reasonsHaveTheirApiLabels() {
        assertThat(Reason.CANARY_CONNECTION_LOST.label()).isEqualTo("canary_connection_lost");
        assertThat(Reason.CANARY_TIMED_OUT.label()).isEqualTo("canary_timed_out");
    }
}
