package io.hedgerow.cli;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A Hedgerow configuration file, read and checked once: every key names an option
 * ({@link ConfigKeys}) or a role's JVM options ({@code jvm.root}, ...), and every value has the
 * option's type. Values stay text, as on the command line, so that picocli converts a file's value
 * exactly as it converts a flag's.
 *
 * <p>Keys are flat within a section ({@code root: {hedge-budget: 0.1}}); a nested mapping is the same
 * key joined with dashes ({@code root: {hedge: {budget: 0.1}}}, although {@code root.hedge} is a key
 * too, written {@code hedge: tied}), except under an option whose value is itself a mapping
 * ({@code leaf: {queue-depth: {batch: 16}}}).
 *
 * @param path   where it was read from
 * @param values each option key's value as command-line text (lists joined by the option's split)
 * @param jvm    each role's JVM options, as written
 */
record ConfigFile(Path path, Map<String, String> values, Map<String, List<String>> jvm) {
    /** The roles the {@code jvm} section may name. */
    static final Set<String> JVM_ROLES = Set.of("root", "leaf", "loadgen");
    /** The section of JVM options. */
    static final String JVM_SECTION = "jvm";

    ConfigFile {
        Objects.requireNonNull(path, "path");
        values = Map.copyOf(values);
        jvm = Map.copyOf(jvm);
    }

    /** Reads and checks {@code path} against {@code keys}; the exception's message names the file and the key. */
    static ConfigFile load(Path path, ConfigKeys keys) {
        JsonNode tree;
        try {
            tree = YAMLMapper.builder().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build()
                    .readTree(Files.readString(path));
        } catch (NoSuchFileException e) {
            throw new ConfigException(path + ": no such configuration file");
        } catch (JacksonException e) {
            throw new ConfigException(path + ": not YAML: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ConfigException(path + ": unreadable: " + e.getMessage());
        }
        return parse(path, tree, keys);
    }

    /** Checks an already read tree (null or empty: an empty file). */
    static ConfigFile parse(Path path, JsonNode tree, ConfigKeys keys) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, List<String>> jvm = new LinkedHashMap<>();
        if (tree == null || tree.isNull() || tree.isMissingNode()) {
            return new ConfigFile(path, values, jvm);
        }
        if (!tree.isObject()) {
            throw new ConfigException(path + ": expected a mapping of sections (" + String.join(", ", sections(keys))
                    + "), found " + kind(tree));
        }
        for (var section : tree.properties()) {
            String name = section.getKey();
            JsonNode body = section.getValue();
            if (name.equals(JVM_SECTION)) {
                readJvm(path, body, jvm);
                continue;
            }
            if (!keys.sections().contains(name)) {
                throw unknown(path, name, sections(keys));
            }
            if (body.isNull()) {
                continue;
            }
            if (!body.isObject()) {
                throw new ConfigException(path + ": " + name + ": expected a mapping of keys, found " + kind(body));
            }
            flatten(path, keys, name, "", body, values);
        }
        return new ConfigFile(path, values, jvm);
    }

    /** The value of {@code key} as command-line text, or null when the file does not set it. */
    String value(String key) {
        return values.get(key);
    }

    private static List<String> sections(ConfigKeys keys) {
        List<String> sections = new ArrayList<>(keys.sections());
        sections.add(JVM_SECTION);
        return sections;
    }

    private static void readJvm(Path path, JsonNode body, Map<String, List<String>> jvm) {
        if (body.isNull()) {
            return;
        }
        if (!body.isObject()) {
            throw new ConfigException(path + ": jvm: expected a mapping of roles (" + String.join(", ", new TreeSet<>(JVM_ROLES))
                    + ") to JVM options, found " + kind(body));
        }
        for (var role : body.properties()) {
            String key = JVM_SECTION + "." + role.getKey();
            if (!JVM_ROLES.contains(role.getKey())) {
                List<String> known = JVM_ROLES.stream().map(r -> JVM_SECTION + "." + r).sorted().toList();
                throw unknown(path, key, known);
            }
            jvm.put(role.getKey(), JvmOptions.parse(key, role.getValue(), path));
        }
    }

    private static void flatten(Path path, ConfigKeys keys, String section, String prefix, JsonNode body,
            Map<String, String> values) {
        for (var entry : body.properties()) {
            String name = prefix.isEmpty() ? entry.getKey() : prefix + "-" + entry.getKey();
            String key = section + "." + name;
            JsonNode value = entry.getValue();
            List<OptionSpec> options = keys.options(key);
            boolean mapOption = !options.isEmpty() && Map.class.isAssignableFrom(options.getFirst().type());
            if (value.isObject() && !mapOption && hasKeysUnder(keys, key + "-")) {
                // root: {hedge: {budget: 0.1}} is root.hedge-budget, even though root.hedge is a key of its own.
                flatten(path, keys, section, name, value, values);
                continue;
            }
            if (options.isEmpty()) {
                throw unknown(path, key, keys.keys());
            }
            if (values.containsKey(key)) {
                throw new ConfigException(path + ": " + key + " is set twice (once nested, once flat)");
            }
            if (value.isNull()) {
                continue; // "key:" with no value: the default, as if absent
            }
            values.put(key, text(path, key, options.getFirst(), value));
        }
    }

    private static boolean hasKeysUnder(ConfigKeys keys, String prefix) {
        for (String key : keys.keys()) {
            if (key.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static ConfigException unknown(Path path, String key, Collection<String> known) {
        String nearest = ConfigKeys.nearest(key, known);
        return new ConfigException(path + ": unknown key '" + key + "'"
                + (nearest == null ? "" : " (nearest valid key: '" + nearest + "')"));
    }

    /** The value as the text a flag would carry, after checking it has the option's type. */
    private static String text(Path path, String key, OptionSpec option, JsonNode value) {
        if (option.isMultiValue()) {
            Class<?>[] auxiliary = option.auxiliaryTypes();
            if (Map.class.isAssignableFrom(option.type())) {
                if (!value.isObject()) {
                    throw wrongType(path, key, value, "a mapping of " + option.paramLabel());
                }
                List<String> pairs = new ArrayList<>();
                for (var entry : value.properties()) {
                    Class<?> valueType = auxiliary.length > 1 ? auxiliary[1] : String.class;
                    String element = scalar(path, key + "." + entry.getKey(), option, valueType, entry.getValue());
                    pairs.add(entry.getKey() + "=" + element);
                }
                return String.join(separator(key, option), pairs);
            }
            Class<?> elementType = auxiliary.length > 0 ? auxiliary[0] : String.class;
            List<String> elements = new ArrayList<>();
            if (value.isArray()) {
                for (JsonNode element : value) {
                    elements.add(scalar(path, key, option, elementType, element));
                }
            } else {
                elements.add(scalar(path, key, option, elementType, value));
            }
            return String.join(separator(key, option), elements);
        }
        return scalar(path, key, option, option.type(), value);
    }

    private static String separator(String key, OptionSpec option) {
        return switch (option.splitRegex()) {
            case "," -> ",";
            case "\\n" -> "\n";
            default -> throw new IllegalStateException(key + ": split '" + option.splitRegex()
                    + "' (expected: ',' or '\\n', which a file's list can be joined with)");
        };
    }

    private static String scalar(Path path, String key, OptionSpec option, Class<?> type, JsonNode value) {
        if (!value.isValueNode() || value.isNull()) {
            throw wrongType(path, key, value, expected(option, type));
        }
        String text = value.asText();
        if (type == boolean.class || type == Boolean.class) {
            if (!value.isBoolean() && !text.equals("true") && !text.equals("false")) {
                throw wrongType(path, key, value, "true or false");
            }
        } else if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            try {
                long parsed = Long.parseLong(text);
                if ((type == int.class || type == Integer.class) && parsed != (int) parsed) {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException e) {
                throw wrongType(path, key, value, expected(option, type));
            }
        } else if (type == double.class || type == Double.class || type == float.class || type == Float.class) {
            try {
                Double.parseDouble(text);
            } catch (NumberFormatException e) {
                throw wrongType(path, key, value, expected(option, type));
            }
        }
        ITypeConverter<?>[] converters = option.converters();
        if (converters != null && converters.length > 0) {
            try {
                converters[0].convert(text);
            } catch (Exception e) {
                throw new ConfigException(path + ": " + key + ": " + describe(value) + " (expected: " + expected(option, type)
                        + "; " + e.getMessage() + ")");
            }
        }
        return text;
    }

    /** What a value of {@code type} looks like, in words. */
    static String expected(OptionSpec option, Class<?> type) {
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "a whole number";
        }
        if (type == double.class || type == Double.class || type == float.class || type == Float.class) {
            return "a number";
        }
        if (type == Duration.class) {
            return "a duration such as 50ms, 2s or 1m";
        }
        if (type == Path.class) {
            return "a path";
        }
        if (option.isMultiValue() && !type.equals(option.type())) {
            return "a " + option.paramLabel() + ", or a list of them";
        }
        return "a " + option.paramLabel();
    }

    private static ConfigException wrongType(Path path, String key, JsonNode value, String expected) {
        return new ConfigException(path + ": " + key + ": " + describe(value) + " (expected: " + expected + ")");
    }

    private static String describe(JsonNode value) {
        return value.isValueNode() ? (value.isTextual() ? "'" + value.asText() + "'" : value.asText()) : kind(value);
    }

    private static String kind(JsonNode node) {
        if (node.isObject()) {
            return "a mapping";
        }
        if (node.isArray()) {
            return "a list";
        }
        return node.isNull() ? "nothing" : "'" + node.asText() + "'";
    }
}
