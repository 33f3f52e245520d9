package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.loadgen.durability.PartitionNemesis.Host;
import io.hedgerow.loadgen.durability.PartitionNemesis.Split;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The partition nemesis's groups (seeded, never empty) and its drops on a recording blocker (every one lifted). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PartitionNemesisTest {
    private static final List<Host> HOSTS = PartitionNemesis.parseHosts(
            "hr-root1=10.77.0.10,hr-leaf1=10.77.0.11,hr-leaf2=10.77.0.12,hr-leaf3=10.77.0.13,hr-root2=10.77.0.20");

    /** The drops in effect, as "namespace<-address". */
    private final Set<String> dropped = new HashSet<>();
    private final List<String> calls = new ArrayList<>();
    private final PartitionNemesis.Blocker recording = new PartitionNemesis.Blocker() {
        @Override
        public void drop(Host host, String fromAddress) {
            calls.add("drop " + host.namespace() + "<-" + fromAddress);
            assertThat(dropped.add(host.namespace() + "<-" + fromAddress)).as("dropped twice").isTrue();
        }

        @Override
        public void lift(Host host, String fromAddress) throws IOException {
            calls.add("lift " + host.namespace() + "<-" + fromAddress);
            if (!dropped.remove(host.namespace() + "<-" + fromAddress)) {
                throw new IOException("no such rule");
            }
        }
    };

    @Test
    void splitsIntoRandomHalvesNeverEmptyAndEveryHostInExactlyOneGroup() {
        Set<String> smallerGroups = new HashSet<>();
        for (long seed = 0; seed < 200; seed++) {
            Split split = PartitionNemesis.choose(HOSTS, new Random(seed));

            assertThat(split.one()).hasSize(2);
            assertThat(split.other()).hasSize(3);
            List<Host> all = new ArrayList<>(split.one());
            all.addAll(split.other());
            assertThat(all).containsExactlyInAnyOrderElementsOf(HOSTS);
            smallerGroups.add(split.one().stream().map(Host::namespace).sorted().toList().toString());
        }
        assertThat(smallerGroups).as("every pair of the 5 hosts is cut off at some seed").hasSize(10);
        assertThat(PartitionNemesis.choose(HOSTS.subList(0, 2), new Random(1)).one()).hasSize(1);
    }

    @Test
    void theSameSeedMakesTheSameSplits() {
        for (long seed = 0; seed < 20; seed++) {
            assertThat(PartitionNemesis.choose(HOSTS, new Random(seed))).isEqualTo(PartitionNemesis.choose(HOSTS, new Random(seed)));
        }
    }

    @Test
    void eachHostDropsEveryAddressOfTheOtherGroupAndNoneOfItsOwn() throws IOException {
        PartitionNemesis nemesis = new PartitionNemesis(HOSTS, recording);

        String struck = nemesis.strike(new Random(4));
        Split split = nemesis.split();

        assertThat(struck).isEqualTo("partition " + split);
        assertThat(dropped).hasSize(2 * 2 * 3);
        for (Host a : HOSTS) {
            for (Host b : HOSTS) {
                boolean across = split.one().contains(a) != split.one().contains(b);
                assertThat(dropped.contains(a.namespace() + "<-" + b.address())).as(a + " drops " + b).isEqualTo(across);
            }
        }
    }

    @Test
    void healLiftsEveryDropAndAStrikeHealsTheLastPartitionFirst() throws IOException {
        PartitionNemesis nemesis = new PartitionNemesis(HOSTS, recording);
        Random random = new Random(9);

        nemesis.strike(random);
        String second = nemesis.strike(random);

        assertThat(second).startsWith("heal partition ").contains(", then partition ");
        assertThat(dropped).hasSize(12);
        Split current = nemesis.split();
        assertThat(nemesis.heal()).isEqualTo("heal partition " + current);
        assertThat(dropped).isEmpty();
        assertThat(nemesis.split()).isNull();
        assertThat(nemesis.heal()).isEmpty();
    }

    @Test
    void aStrikeThatFailsMidwayIsStillLiftedByHeal() throws IOException {
        PartitionNemesis.Blocker failsOnThird = new PartitionNemesis.Blocker() {
            int drops;

            @Override
            public void drop(Host host, String fromAddress) throws IOException {
                if (++drops == 3) {
                    throw new IOException("ip rule add failed");
                }
                recording.drop(host, fromAddress);
            }

            @Override
            public void lift(Host host, String fromAddress) throws IOException {
                recording.lift(host, fromAddress);
            }
        };
        PartitionNemesis nemesis = new PartitionNemesis(HOSTS, failsOnThird);

        assertThatThrownBy(() -> nemesis.strike(new Random(2))).hasMessageContaining("ip rule add failed");
        assertThat(dropped).hasSize(2);
        nemesis.heal();

        assertThat(dropped).isEmpty();
    }

    @Test
    void healTriesEveryLiftAndThenReportsTheFailure() throws IOException {
        PartitionNemesis nemesis = new PartitionNemesis(HOSTS, recording);
        nemesis.strike(new Random(6));
        String vanished = dropped.iterator().next();
        dropped.remove(vanished); // a rule someone deleted by hand: its lift fails

        assertThatThrownBy(nemesis::heal).hasMessageContaining("no such rule");

        assertThat(dropped).isEmpty();
        assertThat(calls.stream().filter(c -> c.startsWith("lift"))).hasSize(12);
        assertThat(nemesis.heal()).isEmpty();
    }

    @Test
    void refusesFewerThanTwoHostsAndBadAddresses() {
        assertThatThrownBy(() -> new PartitionNemesis(HOSTS.subList(0, 1), recording)).hasMessageContaining("hosts: 1");
        assertThatThrownBy(() -> PartitionNemesis.parseHosts("hr-root1=10.77.0")).hasMessageContaining("expected: an IPv4 address");
        assertThatThrownBy(() -> PartitionNemesis.parseHosts("hr-root1")).hasMessageContaining("expected: namespace=address");
    }
}
