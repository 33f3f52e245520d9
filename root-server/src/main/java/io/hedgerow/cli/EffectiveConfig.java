package io.hedgerow.cli;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * What a command runs with, key by key, and where each value came from: a flag, the configuration
 * file, an environment variable (an option whose default is one, e.g. {@code --data} and
 * {@code HEDGEROW_DATA}) or the built-in default. Printed by {@code hedgerow config print} as YAML that
 * can itself be used as a configuration file.
 */
final class EffectiveConfig {
    /** One key's value (command-line text; null: not set) and its source; option null for the jvm section. */
    record Row(String key, OptionSpec option, String value, String source) {
    }

    private static final Pattern ENV_DEFAULT = Pattern.compile("\\$\\{env:([A-Za-z0-9_]+)");

    private EffectiveConfig() {
    }

    /** The rows of a command picocli has parsed (even if it then found a required option missing). */
    static List<Row> rows(CommandSpec command, ConfigDefaultProvider provider) {
        ConfigFile file = provider.fileFor(command);
        List<Row> rows = new ArrayList<>();
        for (OptionSpec option : command.options()) {
            String key = provider.keys().keyOf(option);
            if (key == null) {
                continue;
            }
            if (!option.originalStringValues().isEmpty()) {
                rows.add(new Row(key, option, joined(option, option.originalStringValues()), "flag"));
            } else if (file != null && file.value(key) != null) {
                rows.add(new Row(key, option, file.value(key), "file " + file.path()));
            } else {
                String variable = environmentDefault(option);
                if (variable != null && provider.env().get(variable) != null) {
                    rows.add(new Row(key, option, provider.env().get(variable), "environment " + variable));
                } else {
                    rows.add(new Row(key, option, builtInDefault(option), option.required() ? "required, not set"
                            : "default"));
                }
            }
        }
        return rows;
    }

    /** The environment variable an option's built-in default reads ({@code ${env:NAME...}}), or null. */
    static String environmentDefault(OptionSpec option) {
        String raw = annotationDefault(option);
        if (raw == null) {
            return null;
        }
        Matcher matcher = ENV_DEFAULT.matcher(raw);
        return matcher.find() ? matcher.group(1) : null;
    }

    /** The default as written in the option's annotation (before interpolation), or null. */
    static String annotationDefault(OptionSpec option) {
        if (option.userObject() instanceof Field field) {
            Option annotation = field.getAnnotation(Option.class);
            if (annotation != null && !annotation.defaultValue().equals(Option.NULL_VALUE)
                    && !annotation.defaultValue().equals("__no_default_value__")) {
                return annotation.defaultValue();
            }
        }
        return null;
    }

    private static String builtInDefault(OptionSpec option) {
        if (option.defaultValue() != null) {
            return option.defaultValue();
        }
        Object initial = option.initialValue();
        if (initial == null) {
            return null;
        }
        if (initial instanceof Collection<?> collection) {
            return collection.isEmpty() ? null : joined(option, collection.stream().map(String::valueOf).toList());
        }
        if (initial instanceof Map<?, ?> map) {
            List<String> pairs = new ArrayList<>();
            map.forEach((k, v) -> pairs.add(k + "=" + v));
            return map.isEmpty() ? null : joined(option, pairs);
        }
        return String.valueOf(initial);
    }

    private static String joined(OptionSpec option, List<String> values) {
        String separator = option.splitRegex().equals("\\n") ? "\n" : ",";
        return String.join(separator, values);
    }

    /** Whether a key's value is a secret, never printed: the admin and write tokens. */
    static boolean secret(String key) {
        return key.endsWith("-token") || key.endsWith("-secret");
    }

    /** The rows as YAML: sections in the order met, each key with its source as a comment. */
    static String yaml(List<Row> rows) {
        Map<String, List<Row>> bySection = new LinkedHashMap<>();
        for (Row row : rows) {
            bySection.computeIfAbsent(row.key().substring(0, row.key().indexOf('.')), s -> new ArrayList<>()).add(row);
        }
        StringBuilder out = new StringBuilder();
        for (var section : bySection.entrySet()) {
            out.append(section.getKey()).append(":\n");
            List<String> lines = new ArrayList<>();
            int width = 0;
            for (Row row : section.getValue()) {
                String line = "  " + row.key().substring(row.key().indexOf('.') + 1) + ": " + yamlValue(row);
                lines.add(line);
                width = Math.max(width, line.length());
            }
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                Row row = section.getValue().get(i);
                out.append(line).append(" ".repeat(width - line.length() + 2)).append("# ").append(row.source())
                        .append(secret(row.key()) && row.value() != null ? "; set, a secret not shown" : "").append('\n');
            }
        }
        return out.toString();
    }

    private static String yamlValue(Row row) {
        if (row.value() == null) {
            return "~";
        }
        if (secret(row.key())) {
            return "~"; // printed as unset, so that the output used as a file cannot carry it by mistake
        }
        OptionSpec option = row.option();
        if (option != null && option.isMultiValue()) {
            String separator = option.splitRegex().equals("\\n") ? "\n" : ",";
            List<String> elements = List.of(row.value().split(Pattern.quote(separator), -1));
            if (Map.class.isAssignableFrom(option.type())) {
                List<String> pairs = new ArrayList<>();
                for (String element : elements) {
                    int equals = element.indexOf('=');
                    pairs.add(scalar(element.substring(0, equals)) + ": " + scalar(element.substring(equals + 1)));
                }
                return "{" + String.join(", ", pairs) + "}";
            }
            return "[" + String.join(", ", elements.stream().map(EffectiveConfig::scalar).toList()) + "]";
        }
        return scalar(row.value());
    }

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./+@][A-Za-z0-9_./+@:=-]*");
    /** Words YAML 1.1 readers take for null or booleans. */
    private static final java.util.Set<String> RESERVED = java.util.Set.of("null", "~", "yes", "no", "on", "off", "y", "n");

    /** A YAML scalar: plain when that reads back as the same text, else double-quoted. */
    static String scalar(String text) {
        if (PLAIN.matcher(text).matches() && !RESERVED.contains(text.toLowerCase(java.util.Locale.ROOT))) {
            return text;
        }
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                default -> quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }

    /** The deepest command {@code tokens} name under {@code top}, e.g. "local restart". */
    static CommandLine command(CommandLine top, List<String> tokens) {
        CommandLine current = top;
        for (String token : tokens) {
            CommandLine sub = current.getSubcommands().get(token);
            if (sub == null) {
                break;
            }
            current = sub;
        }
        return current;
    }
}
