package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The nemesis loop's seeded decisions, played without a clock: with leaf, link and zk nemeses
 * (durability.sh --netns --nemesis leaf,link,zk), the schedule strikes each of them, the link
 * nemesis cuts leaf hosts' links, every spell lies within its bounds, and one fault is healed
 * before the next strikes, as {@link NemesisLoop} plays the same calls.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NemesisScheduleTest {
    private static final NemesisLoop.Timing TIMING = NemesisLoop.Timing.defaults();

    @Test
    void aSeededScheduleCutsLinksWithEverySpellWithinItsBounds() throws IOException {
        List<String> events = new ArrayList<>();
        LinkNemesis link = new LinkNemesis(LinkNemesis.parseHosts("leaf1=hrv-leaf1,leaf2=hrv-leaf2,leaf3=hrv-leaf3"),
                (name, up) -> events.add(name + (up ? " up" : " down")));
        List<Nemesis> nemeses = List.of(new Recording("leaf", events), link, new Recording("zk", events));
        NemesisSchedule schedule = new NemesisSchedule(nemeses.size(), TIMING, 21);
        List<Long> quiet = new ArrayList<>();
        List<Long> faults = new ArrayList<>();
        int faultsInEffect = 0;
        int maxInEffect = 0;

        // Five minutes of the loop's calls, in its order.
        long elapsedMillis = 0;
        while (elapsedMillis < Duration.ofMinutes(5).toMillis()) {
            long q = schedule.quietMillis();
            Nemesis nemesis = nemeses.get(schedule.nemesis());
            nemesis.strike(schedule.random());
            faultsInEffect++;
            maxInEffect = Math.max(maxInEffect, faultsInEffect);
            long f = schedule.faultMillis();
            nemesis.heal();
            faultsInEffect--;
            quiet.add(q);
            faults.add(f);
            elapsedMillis += q + f;
        }

        assertThat(quiet).allSatisfy(q -> assertThat(q).isBetween(2_000L, 6_000L));
        assertThat(faults).allSatisfy(f -> assertThat(f).isBetween(3_000L, 10_000L));
        assertThat(events).anyMatch(e -> e.endsWith(" down")).anyMatch(e -> e.startsWith("leaf strike"))
                .anyMatch(e -> e.startsWith("zk strike"));
        assertThat(maxInEffect).isEqualTo(1);
        // Every cut is restored before anything else happens: a "down" is always followed by its "up".
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).endsWith(" down")) {
                assertThat(events.get(i + 1)).isEqualTo(events.get(i).replace(" down", " up"));
            }
        }
    }

    @Test
    void theSameSeedMakesTheSameChoices() {
        assertThat(draws(21)).isEqualTo(draws(21)).isNotEqualTo(draws(22));
    }

    @Test
    void aSpellWithEqualBoundsIsExactlyThatLong() {
        NemesisSchedule schedule = new NemesisSchedule(1, new NemesisLoop.Timing(Duration.ofSeconds(4),
                Duration.ofSeconds(4), Duration.ZERO, Duration.ZERO), 1);

        assertThat(schedule.quietMillis()).isEqualTo(4_000);
        assertThat(schedule.faultMillis()).isZero();
    }

    @Test
    void refusesAScheduleWithoutNemeses() {
        assertThatThrownBy(() -> new NemesisSchedule(0, TIMING, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nemeses: 0 (expected: >= 1)");
    }

    private static List<Long> draws(long seed) {
        NemesisSchedule schedule = new NemesisSchedule(3, TIMING, seed);
        List<Long> draws = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            draws.add(schedule.quietMillis());
            draws.add((long) schedule.nemesis());
            draws.add(schedule.faultMillis());
        }
        return draws;
    }

    /** A nemesis that only notes its strikes and heals, drawing from the random source as a real one does. */
    private record Recording(String name, List<String> events) implements Nemesis {
        @Override
        public String strike(Random random) {
            events.add(name + " strike " + random.nextInt(3));
            return name;
        }

        @Override
        public String heal() {
            events.add(name + " heal");
            return name;
        }
    }
}
