package io.hedgerow.cli;

import java.util.Locale;
import picocli.CommandLine.Option;

/** How the root's searches go out to the leaves, shared by {@code root}, {@code local} and {@code demo}. */
final class FanOutOptions {
    @Option(names = "--leaf-batching", paramLabel = "on|off", defaultValue = "off",
            description = "on: a search's first copies for several partitions of one leaf go to it in one message,"
                    + " answered per partition, and the leaf runs the cheap ones one after another in one task; off:"
                    + " one message and one leaf task per partition. Backups, retries, tied twins and canaries always"
                    + " go alone (default: ${DEFAULT-VALUE}).")
    String leafBatching;

    /** @throws IllegalArgumentException when --leaf-batching is neither on nor off */
    boolean leafBatching() {
        return switch (leafBatching.toLowerCase(Locale.ROOT)) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("--leaf-batching: " + leafBatching + " (expected: on or off)");
        };
    }
}
