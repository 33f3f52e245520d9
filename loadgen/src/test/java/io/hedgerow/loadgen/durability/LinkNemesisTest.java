package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.loadgen.durability.LinkNemesis.Host;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The link nemesis's choices on a recording link switch: which host, and that every cut is restored. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LinkNemesisTest {
    private static final List<Host> HOSTS = LinkNemesis.parseHosts("leaf1=hrv-leaf1,leaf2=hrv-leaf2,leaf3=hrv-leaf3,root1=hrv-root1");

    /** Every set, in order, as "link up|down". */
    private final List<String> switched = new ArrayList<>();
    private final LinkNemesis.LinkSwitch recording = (link, up) -> switched.add(link + (up ? " up" : " down"));

    @Test
    void cutsOneHostsLinkAndHealRestoresIt() throws IOException {
        LinkNemesis nemesis = new LinkNemesis(HOSTS, recording);

        String struck = nemesis.strike(new Random(3));
        Host cut = nemesis.cut();

        assertThat(switched).containsExactly(cut.link() + " down");
        assertThat(struck).isEqualTo("cut " + cut.name() + "'s link (" + cut.link() + " down)");
        assertThat(nemesis.heal()).isEqualTo("restore " + cut.name() + "'s link (" + cut.link() + " up)");
        assertThat(switched).containsExactly(cut.link() + " down", cut.link() + " up");
        assertThat(nemesis.cut()).isNull();
    }

    @Test
    void healWithNothingCutDoesNothing() throws IOException {
        LinkNemesis nemesis = new LinkNemesis(HOSTS, recording);

        assertThat(nemesis.heal()).isEmpty();
        assertThat(switched).isEmpty();
    }

    @Test
    void theSameSeedCutsTheSameHostsAndEveryHostIsChosen() throws IOException {
        List<String> first = cuts(21, 40);
        List<String> second = cuts(21, 40);

        assertThat(first).isEqualTo(second);
        assertThat(first).containsOnly("leaf1", "leaf2", "leaf3", "root1")
                .contains("leaf1", "leaf2", "leaf3", "root1");
    }

    @Test
    void aStrikeWhileALinkIsCutRestoresItFirst() throws IOException {
        LinkNemesis nemesis = new LinkNemesis(HOSTS, recording);
        Random random = new Random(5);
        nemesis.strike(random);
        Host first = nemesis.cut();

        String struck = nemesis.strike(random);

        assertThat(switched.get(1)).isEqualTo(first.link() + " up");
        assertThat(struck).startsWith("restore " + first.name() + "'s link");
        assertThat(switched).hasSize(3);
    }

    @Test
    void aFailedCutLeavesNothingToHeal() {
        LinkNemesis nemesis = new LinkNemesis(HOSTS, (link, up) -> {
            throw new IOException("ip link set " + link + " failed: Operation not permitted");
        });

        assertThatThrownBy(() -> nemesis.strike(new Random(1))).isInstanceOf(IOException.class)
                .hasMessageContaining("Operation not permitted");
        assertThat(nemesis.cut()).isNull();
    }

    @Test
    void parsesHostsAndRefusesMalformedOnes() {
        assertThat(HOSTS).extracting(Host::name).containsExactly("leaf1", "leaf2", "leaf3", "root1");
        assertThat(HOSTS.get(3).link()).isEqualTo("hrv-root1");
        assertThatThrownBy(() -> LinkNemesis.parseHosts("leaf1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected: name=link");
        assertThatThrownBy(() -> LinkNemesis.parseHosts("leaf1=eth0; reboot")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("interface name");
        assertThatThrownBy(() -> new LinkNemesis(List.of(), recording)).isInstanceOf(IllegalArgumentException.class);
    }

    private List<String> cuts(long seed, int strikes) throws IOException {
        LinkNemesis nemesis = new LinkNemesis(HOSTS, (link, up) -> { });
        Random random = new Random(seed);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < strikes; i++) {
            nemesis.strike(random);
            names.add(nemesis.cut().name());
            nemesis.heal();
        }
        return names;
    }
}
