package io.hedgerow.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The JVM options of each kind of process (root, leaf, load generator): the environment variable
 * {@code HEDGEROW_<ROLE>_JVM} if set, else the configuration file's {@code jvm.<role>}, else the
 * defaults below. Either replaces the defaults as a whole (a collector and a heap, usually), since
 * two collectors on one command line stop the JVM. The {@code ./hedgerow} launcher applies the same
 * rule to the JVM it starts (it asks {@code hedgerow config jvm} when a file is in use), and
 * {@code local} to the leaves it starts.
 */
final class JvmOptions {
    /**
     * Root and leaves: the parallel collector, short young pauses for servers with small, steady live
     * data (JavaLauncher's javadoc has the measurements); the load generator: headless (its reports
     * draw charts) and ZGC, whose pauses stay far below its own measured tail. Keep these as the
     * launcher's ROOT_JVM, LEAF_JVM and LOADGEN_JVM (JvmOptionsTest checks).
     */
    static final Map<String, List<String>> DEFAULTS = Map.of(
            "root", List.of("-XX:+UseParallelGC", "-Xmx2g"),
            "leaf", List.of("-XX:+UseParallelGC", "-Xmx1g"),
            "loadgen", List.of("-Djava.awt.headless=true", "-XX:+UseZGC", "-Xmx2g"));

    private JvmOptions() {
    }

    /** The environment variable of a role's JVM options, e.g. {@code HEDGEROW_LEAF_JVM}. */
    static String environmentVariable(String role) {
        return "HEDGEROW_" + role.toUpperCase(Locale.ROOT) + "_JVM";
    }

    /** A role's options and where they came from. */
    record Resolved(List<String> options, String source) {
    }

    /** The options of {@code role}: environment, then file (may be null), then defaults. */
    static Resolved resolve(String role, Map<String, String> env, ConfigFile file) {
        List<String> defaults = DEFAULTS.get(role);
        if (defaults == null) {
            throw new IllegalArgumentException("role: '" + role + "' (expected: one of " + DEFAULTS.keySet() + ")");
        }
        String fromEnv = env.get(environmentVariable(role));
        if (fromEnv != null && !fromEnv.isBlank()) {
            return new Resolved(split(environmentVariable(role), fromEnv), "environment " + environmentVariable(role));
        }
        if (file != null && file.jvm().containsKey(role)) {
            return new Resolved(file.jvm().get(role), "file " + file.path());
        }
        return new Resolved(defaults, "default");
    }

    /** A file's {@code jvm.<role>}: a string of options separated by spaces, or a list of options. */
    static List<String> parse(String key, JsonNode value, Path path) {
        if (value.isTextual()) {
            return split(path + ": " + key, value.asText());
        }
        if (value.isArray()) {
            List<String> options = new ArrayList<>();
            for (JsonNode option : value) {
                if (!option.isTextual()) {
                    throw new ConfigException(path + ": " + key + ": " + option + " (expected: JVM options, e.g. \"-Xmx2g\")");
                }
                options.addAll(split(path + ": " + key, option.asText()));
            }
            return List.copyOf(options);
        }
        throw new ConfigException(path + ": " + key + ": " + value
                + " (expected: JVM options separated by spaces, e.g. \"-XX:+UseParallelGC -Xmx2g\", or a list of them)");
    }

    /** Options separated by white space, each starting with '-' (no quoting: an option holds no space). */
    static List<String> split(String what, String text) {
        List<String> options = new ArrayList<>();
        for (String option : text.strip().split("\\s+")) {
            if (option.isEmpty()) {
                continue;
            }
            if (!option.startsWith("-")) {
                throw new ConfigException(what + ": '" + option + "' (expected: JVM options starting with '-', separated"
                        + " by spaces)");
            }
            options.add(option);
        }
        return List.copyOf(options);
    }
}
