package io.hedgerow.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Writes docs/configuration.md from the commands' options, so the reference cannot drift from the
 * code: {@code hedgerow config reference} prints it, and ConfigReferenceTest fails when the checked-in
 * file differs.
 */
final class ConfigReference {
    private ConfigReference() {
    }

    static String markdown() {
        CommandLine top = HedgerowCli.newCommandLine(Map.of());
        // The raw descriptions: ${DEFAULT-VALUE} of --workers would otherwise be this machine's core count.
        top.setInterpolateVariables(false);
        ConfigKeys keys = ConfigKeys.of(top.getCommandSpec());
        Map<String, String> pathOf = new LinkedHashMap<>();
        keys.commands().forEach((path, spec) -> pathOf.put(spec.qualifiedName(), path));
        StringBuilder out = new StringBuilder();
        out.append(INTRO);
        Map<String, List<String>> bySection = new TreeMap<>((a, b) -> Integer.compare(order(a), order(b)) != 0
                ? Integer.compare(order(a), order(b)) : a.compareTo(b));
        for (String key : keys.keys()) {
            bySection.computeIfAbsent(key.substring(0, key.indexOf('.')), s -> new ArrayList<>()).add(key);
        }
        for (var section : bySection.entrySet()) {
            out.append("\n## `").append(section.getKey()).append("`\n\n");
            out.append(SECTION_NOTES.getOrDefault(section.getKey(), ""));
            out.append("| Key | Flag of | Default | Description |\n|---|---|---|---|\n");
            for (String key : section.getValue()) {
                List<OptionSpec> options = keys.options(key);
                OptionSpec first = options.getFirst();
                List<String> commands = new ArrayList<>();
                for (OptionSpec option : options) {
                    commands.add("`" + pathOf.get(option.command().qualifiedName()) + " " + option.longestName() + "`");
                }
                out.append("| `").append(key.substring(key.indexOf('.') + 1)).append("` | ")
                        .append(String.join(", ", commands)).append(" | ")
                        .append(cell(defaultOf(first))).append(" | ")
                        .append(cell(description(first))).append(" |\n");
            }
        }
        out.append("\n## `jvm`\n\n");
        out.append("Each role's JVM options: `HEDGEROW_<ROLE>_JVM` in the environment, else `jvm.<role>` in the file,"
                + " else the default. Either replaces the default as a whole (write the collector too when you change"
                + " the heap: two collectors stop the JVM). A string of options separated by spaces, or a list.\n\n");
        out.append("| Key | Environment variable | Default | Runs |\n|---|---|---|---|\n");
        Map<String, String> runs = Map.of("root", "`root`, `local`, `demo` (and `index`, `simulate`, `config`)",
                "leaf", "`leaf`, and each leaf `local` and `demo` start", "loadgen", "`loadgen`");
        for (String role : List.of("root", "leaf", "loadgen")) {
            out.append("| `").append(role).append("` | `").append(JvmOptions.environmentVariable(role)).append("` | `")
                    .append(String.join(" ", JvmOptions.DEFAULTS.get(role))).append("` | ").append(runs.get(role))
                    .append(" |\n");
        }
        return out.toString();
    }

    private static int order(String section) {
        int index = List.of("root", "leaf", "local", "demo", "index", "simulate").indexOf(section);
        return index < 0 ? 100 : index;
    }

    private static String defaultOf(OptionSpec option) {
        String raw = EffectiveConfig.annotationDefault(option);
        if (raw != null) {
            String variable = EffectiveConfig.environmentDefault(option);
            if (variable != null) {
                int fallback = raw.indexOf(":-");
                return fallback < 0 ? "`$" + variable + "`, else unset"
                        : "`$" + variable + "`, else `" + raw.substring(fallback + 2, raw.lastIndexOf('}')) + "`";
            }
            return "`" + raw + "`";
        }
        if (option.type() == boolean.class) {
            return "`false`";
        }
        Object initial = option.initialValue();
        if (initial == null || initial instanceof java.util.Collection<?> c && c.isEmpty()
                || initial instanceof Map<?, ?> m && m.isEmpty()) {
            return option.required() ? "required" : "unset";
        }
        return "see description";
    }

    private static String description(OptionSpec option) {
        String text = String.join(" ", option.description());
        String raw = EffectiveConfig.annotationDefault(option);
        text = text.replace("${DEFAULT-VALUE}", raw != null ? raw : "as many as it has");
        if (option.completionCandidates() != null) {
            List<String> candidates = new ArrayList<>();
            option.completionCandidates().forEach(candidates::add);
            text = text.replace("${COMPLETION-CANDIDATES}", String.join(", ", candidates));
        }
        return text;
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    private static final Map<String, String> SECTION_NOTES = Map.of(
            "root", "The root's settings: `hedgerow root`, and the root that `local` and `demo` run.\n\n",
            "leaf", "One leaf's settings: `hedgerow leaf`, and each leaf `local` and `demo` start (they set `index`,"
                    + " `host`, `port`, `port-file`, `cluster-secret-file`, `node-id`, `exit-with-parent` and, with"
                    + " `local.tls`, `tls-cert` and `tls-key`, and with `local.zk`, `term-log` themselves; `workers` and"
                    + " `warmup` apply when"
                    + " `local.leaf-workers` and `local.leaf-warmup` are left unset).\n\n",
            "local", "The local cluster: `hedgerow local`, `local stop`, `local restart`, and the cluster `demo` runs.\n\n");

    private static final String INTRO = """
            # Configuration reference

            <!-- Generated from the commands' options by `./hedgerow config reference > docs/configuration.md`
                 (ConfigReference.java): do not edit by hand; ConfigReferenceTest fails when this file is out of date. -->

            Every flag of every command can also be set in one YAML file, given with `--config FILE` (every command
            but `index`, whose `--config` names the index's JSON configuration) or the environment variable
            `HEDGEROW_CONFIG`. An example: [examples/hedgerow.yaml](examples/hedgerow.yaml).

            ```yaml
            root: { hedge: tied, hedge-budget: 0.05, admission: vegas }
            leaf: { slice: 2ms, queue-depth: { batch: 16 } }
            local: { leaves: 4, replicas: 2 }
            jvm: { root: "-XX:+UseParallelGC -Xmx2g", leaf: "-XX:+UseParallelGC -Xmx1g" }
            ```

            **Precedence.** A flag on the command line wins over the file, and the file over the built-in default
            (picocli's default-value provider: the file's values are the defaults). Some defaults read an
            environment variable (`--data`: `HEDGEROW_DATA`); a value in the file wins over it.

            **Keys.** A flag's key is its section, a dot, and its long name without the dashes: `--hedge-budget` of
            `hedgerow root` is `root.hedge-budget`, written `root: { hedge-budget: 0.1 }`. The section is the
            command's name (`local stop` and `local restart` read `local`), except that the settings the root shares
            with `local` and `demo` (hedging, tail, intake, adaptation, placement) are always under `root`, and the
            cluster settings `demo` shares with `local` under `local`. A nested mapping joins its keys with a dash:
            `root: { hedge: { budget: 0.1 } }` is `root.hedge-budget`. A flag taking several values takes a YAML list
            (`root: { leaves: [127.0.0.1:9001, 127.0.0.1:9002] }`), and one taking `NAME=VALUE` pairs a mapping
            (`leaf: { queue-depth: { batch: 16 } }`). A key with no value (`hedge-after:`) leaves the default.
            Relative paths are read from the working directory, as on the command line, not from the file's.

            **Errors.** An unknown key stops the command and names the nearest valid one
            (`unknown key 'root.hedge-budgte' (nearest valid key: 'root.hedge-budget')`); a value of the wrong type
            names the key and the type expected (`root.hedge-budget: 'lots' (expected: a number)`).

            **What a command runs with.** `./hedgerow config print [--config FILE] [COMMAND [FLAG...]]` prints the
            effective configuration as YAML, each value with its source (flag, file, environment or default);
            without a command, every section's. Its output is itself a configuration file.

            **Local clusters.** `local` and `demo` run their root with the `root` section and start every leaf with
            the same file, so each leaf reads the `leaf` section with the same precedence (the flags `local` passes a
            leaf win; see the `leaf` section below). The leaves' JVMs get `jvm.leaf`.

            **JVM options.** The `./hedgerow` launcher starts each kind of process with its own JVM options (the
            `jvm` section below): `./hedgerow leaf` with the leaf's, `root`, `local` and `demo` with the root's.

            Not configurable: `--help`, `--version`, `--config` itself, and the `config` and `help` commands.
            """;
}
