package io.hedgerow.cli;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every key of the configuration file, read from picocli's specs of the commands: no flag without a
 * key, and no key without a flag.
 *
 * <p>The rule: an option's key is {@code <section>.<its long name without the leading dashes>}, e.g.
 * {@code --hedge-budget} of {@code root} is {@code root.hedge-budget}. The section is the name of the
 * command (the subcommands of {@code local} read the {@code local} section), except that options a
 * command shares with {@code root} (hedging, tail, intake, adaptation, placement: the settings of the
 * root that {@code local} and {@code demo} also run) are under {@code root}, and those {@code demo}
 * shares with {@code local} (the shape of the cluster) under {@code local}. Two options with one key
 * mean the same thing (e.g. {@code --data} of {@code local} and {@code local stop}).
 *
 * <p>Not configurable: {@code --help}, {@code --version}, {@code --config FILE} itself, the options
 * of {@code hedgerow} that every command inherits ({@code --log-format}), and the {@code config} and
 * {@code help} commands. ({@code index --config} names the index's own JSON
 * configuration, an option like any other: {@code index.config}.)
 */
final class ConfigKeys {
    /** The option that names the configuration file. */
    static final String CONFIG_OPTION = "--config";
    /** The environment variable that names it when no {@code --config} does. */
    static final String CONFIG_ENV = "HEDGEROW_CONFIG";
    /** Commands whose options have no keys. */
    static final Set<String> UNCONFIGURED_COMMANDS = Set.of("help", "config");
    /** The sections that lend their options to other commands, in the order a shared option is placed. */
    private static final List<String> LENDING_SECTIONS = List.of("root", "local");

    private final Map<String, List<OptionSpec>> optionsByKey = new TreeMap<>();
    private final Map<OptionSpec, String> keyByOption = new LinkedHashMap<>();
    private final Map<String, CommandSpec> commandsByPath = new LinkedHashMap<>();

    private ConfigKeys(CommandSpec top) {
        Map<String, Set<Class<?>>> lenders = new LinkedHashMap<>();
        for (String section : LENDING_SECTIONS) {
            CommandLine lender = top.subcommands().get(section);
            if (lender != null) {
                Set<Class<?>> declaring = new HashSet<>();
                for (OptionSpec option : lender.getCommandSpec().options()) {
                    Class<?> owner = declaringClass(option);
                    if (owner != null) {
                        declaring.add(owner);
                    }
                }
                lenders.put(section, declaring);
            }
        }
        for (CommandLine sub : top.subcommands().values()) {
            String name = sub.getCommandName();
            if (!UNCONFIGURED_COMMANDS.contains(name)) {
                collect(sub.getCommandSpec(), name, name, lenders);
            }
        }
    }

    /** The keys of every command under {@code top} (the {@code hedgerow} command). */
    static ConfigKeys of(CommandSpec top) {
        return new ConfigKeys(top);
    }

    private void collect(CommandSpec command, String path, String section, Map<String, Set<Class<?>>> lenders) {
        commandsByPath.put(path, command);
        for (OptionSpec option : command.options()) {
            if (!configurable(option)) {
                continue;
            }
            String owner = section;
            Class<?> declaring = declaringClass(option);
            for (var lender : lenders.entrySet()) {
                if (declaring != null && lender.getValue().contains(declaring)) {
                    owner = lender.getKey();
                    break;
                }
            }
            String key = owner + "." + name(option);
            keyByOption.put(option, key);
            optionsByKey.computeIfAbsent(key, k -> new ArrayList<>()).add(option);
        }
        for (CommandLine sub : command.subcommands().values()) {
            collect(sub.getCommandSpec(), path + " " + sub.getCommandName(), section, lenders);
        }
    }

    /**
     * Whether an option has a key: all of a command's own but help, version and {@code --config}. An
     * option every command inherits from {@code hedgerow} itself (such as {@code --log-format}) has none:
     * it belongs to the process, not to one command, and is read before the file is (logging starts
     * before picocli: the flag or {@code HEDGEROW_LOG_FORMAT} set it).
     */
    static boolean configurable(OptionSpec option) {
        return !option.usageHelp() && !option.versionHelp() && option.longestName().startsWith("--")
                && !ConfigDefaultProvider.isConfigOption(option) && !option.inherited();
    }

    /** The option's long name without its leading dashes: its key within its section. */
    static String name(OptionSpec option) {
        return option.longestName().substring(2);
    }

    private static Class<?> declaringClass(OptionSpec option) {
        return option.userObject() instanceof Field field ? field.getDeclaringClass() : null;
    }

    /** The option's key, or null when it has none (help, version, {@code --config}, other commands). */
    String keyOf(OptionSpec option) {
        return keyByOption.get(option);
    }

    /** The options a key sets: one, or several that mean the same in different commands. */
    List<OptionSpec> options(String key) {
        return optionsByKey.getOrDefault(key, List.of());
    }

    /** Every key, sorted. */
    Set<String> keys() {
        return optionsByKey.keySet();
    }

    /** The sections: {@code root}, {@code leaf}, {@code local}, ... */
    Set<String> sections() {
        Set<String> sections = new java.util.TreeSet<>();
        for (String key : optionsByKey.keySet()) {
            sections.add(key.substring(0, key.indexOf('.')));
        }
        return sections;
    }

    /** The configured commands by their path ({@code "local stop"}), in declaration order. */
    Map<String, CommandSpec> commands() {
        return commandsByPath;
    }

    /** The key among {@code candidates} nearest to {@code wrong} (fewest edits), for error messages. */
    static String nearest(String wrong, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int distance = editDistance(wrong, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    private static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
