package io.hedgerow.loadgen.durability;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Jepsen's partition nemesis for a cluster spread over network namespaces
 * ({@code benchmarks/durability.sh --netns}): splits the hosts into two groups at random (random
 * halves, as Jepsen's {@code partition-random-halves}: the seed shuffles them, the first
 * {@code n / 2} are one group) and makes every host drop what comes from the other group; heal
 * lifts every drop it made. Each group goes on talking within itself and to nobody across the cut,
 * silently: packets vanish (no refusal), as on a real network that split. The drops are the
 * {@link Blocker}'s, at the edge ({@link #ipRules()}: {@code ip rule ... blackhole} in each host's
 * namespace).
 *
 * <p><b>Assumptions and guarantees.</b> Called from the loop's thread only. One partition at a time:
 * a strike while one is in effect heals it first. Heal lifts every drop it made even when lifting
 * one fails (it reports the first failure after trying all).
 */
public final class PartitionNemesis implements Nemesis {
    /** A host: its network namespace and its address on the hosts' network. */
    public record Host(String namespace, String address) {
        public Host {
            if (namespace == null || !namespace.matches("[A-Za-z0-9_.-]{1,64}")) {
                throw new IllegalArgumentException("namespace: '" + namespace + "' (expected: 1-64 letters, digits, '_', '.', '-')");
            }
            if (address == null || !address.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
                throw new IllegalArgumentException("address of " + namespace + ": '" + address + "' (expected: an IPv4 address)");
            }
        }
    }

    /** Two groups of hosts, neither empty, that cannot reach each other. */
    public record Split(List<Host> one, List<Host> other) {
        public Split {
            one = List.copyOf(one);
            other = List.copyOf(other);
            if (one.isEmpty() || other.isEmpty()) {
                throw new IllegalArgumentException("split: " + one + " | " + other + " (expected: two non-empty groups)");
            }
        }

        @Override
        public String toString() {
            return names(one) + " | " + names(other);
        }

        private static String names(List<Host> hosts) {
            return "{" + String.join(", ", hosts.stream().map(Host::namespace).toList()) + "}";
        }
    }

    /** Drops, in one host's namespace, every packet from an address; and lifts that drop. */
    public interface Blocker {
        void drop(Host host, String fromAddress) throws IOException;

        void lift(Host host, String fromAddress) throws IOException;
    }

    /** One drop in effect: {@code host} drops packets from {@code fromAddress}. */
    private record Drop(Host host, String fromAddress) {
    }

    private final List<Host> hosts;
    private final Blocker blocker;
    private final List<Drop> inEffect = new ArrayList<>();
    private Split split;

    public PartitionNemesis(List<Host> hosts, Blocker blocker) {
        if (hosts.size() < 2) {
            throw new IllegalArgumentException("hosts: " + hosts.size() + " (expected: at least 2 to split into two groups)");
        }
        this.hosts = List.copyOf(hosts);
        this.blocker = blocker;
    }

    /** The hosts of {@code --hosts}: {@code namespace=address[,...]}, e.g. {@code hr-root1=10.77.0.10,hr-leaf1=10.77.0.11}. */
    public static List<Host> parseHosts(String value) {
        List<Host> hosts = new ArrayList<>();
        for (String pair : value.split(",")) {
            String[] parts = pair.strip().split("=", 2);
            if (parts.length != 2) {
                throw new IllegalArgumentException("--hosts: '" + pair + "' in '" + value
                        + "' (expected: namespace=address[,...], e.g. hr-leaf1=10.77.0.11)");
            }
            hosts.add(new Host(parts[0].strip(), parts[1].strip()));
        }
        return hosts;
    }

    /** Random halves of {@code hosts}, by {@code random}: the smaller group has {@code n / 2} hosts, never none. */
    static Split choose(List<Host> hosts, Random random) {
        List<Host> shuffled = new ArrayList<>(hosts);
        Collections.shuffle(shuffled, random);
        int cut = shuffled.size() / 2;
        return new Split(shuffled.subList(0, cut), shuffled.subList(cut, shuffled.size()));
    }

    /**
     * Routing rules in each host's namespace: {@code ip -n <ns> rule add pref 10 from <address>/32 blackhole}.
     * Incoming packets are routed by source before they reach the host's sockets, as long as the local
     * table is looked up after preference 10 ({@code benchmarks/netns-lib.sh} moves it to 100); a
     * blackhole route drops them silently. Used because this machine has neither iptables nor nft,
     * and its kernel no tc actions; {@code ip} (iproute2) is what the netns scripts need anyway.
     */
    public static Blocker ipRules() {
        return new Blocker() {
            @Override
            public void drop(Host host, String fromAddress) throws IOException {
                ip(host, "add", fromAddress);
            }

            @Override
            public void lift(Host host, String fromAddress) throws IOException {
                ip(host, "del", fromAddress);
            }

            private void ip(Host host, String verb, String fromAddress) throws IOException {
                List<String> command = List.of("ip", "-n", host.namespace(), "rule", verb, "pref", "10", "from",
                        fromAddress + "/32", "blackhole");
                try {
                    Process ip = new ProcessBuilder(command).redirectErrorStream(true).start();
                    String output = new String(ip.getInputStream().readAllBytes()).strip();
                    if (ip.waitFor() != 0) {
                        throw new IOException(String.join(" ", command) + " failed: " + output);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted: " + String.join(" ", command), e);
                }
            }
        };
    }

    @Override
    public String name() {
        return "partition";
    }

    @Override
    public String strike(Random random) throws IOException {
        String healed = heal();
        Split chosen = choose(hosts, random);
        split = chosen;
        // Each drop is recorded once made, so heal lifts a half-made partition too (a strike that fails midway).
        dropAll(chosen.one(), chosen.other());
        dropAll(chosen.other(), chosen.one());
        return (healed.isEmpty() ? "" : healed + ", then ") + "partition " + chosen;
    }

    private void dropAll(List<Host> at, List<Host> from) throws IOException {
        for (Host host : at) {
            for (Host source : from) {
                blocker.drop(host, source.address());
                inEffect.add(new Drop(host, source.address()));
            }
        }
    }

    @Override
    public String heal() throws IOException {
        if (inEffect.isEmpty()) {
            split = null;
            return "";
        }
        IOException first = null;
        for (Drop drop : List.copyOf(inEffect)) {
            try {
                blocker.lift(drop.host(), drop.fromAddress());
                inEffect.remove(drop);
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        Split healed = split;
        if (first != null) {
            inEffect.clear(); // tried once; what could not be lifted is named in the failure, and the trap's teardown removes it
            split = null;
            throw new IOException("healing partition " + healed + ": " + first.getMessage(), first);
        }
        split = null;
        return "heal partition " + healed;
    }

    /** The partition in effect, or null. */
    Split split() {
        return split;
    }
}
