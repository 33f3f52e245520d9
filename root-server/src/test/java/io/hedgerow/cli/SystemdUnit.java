package io.hedgerow.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A systemd unit file as far as the deployment tests read it: each {@code Section.Key} with its values in
 * order (a key may repeat, as {@code Environment=} does), comments and blank lines skipped.
 */
record SystemdUnit(Path path, Map<String, List<String>> entries) {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

    static SystemdUnit read(Path path) throws IOException {
        Map<String, List<String>> entries = new LinkedHashMap<>();
        String section = null;
        for (String raw : Files.readAllLines(path)) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
                continue;
            }
            if (line.startsWith("[") && line.endsWith("]")) {
                section = line.substring(1, line.length() - 1);
                continue;
            }
            int equals = line.indexOf('=');
            if (section == null || equals <= 0) {
                throw new IllegalArgumentException(path + ": '" + line + "' (expected: [Section] or Key=value)");
            }
            entries.computeIfAbsent(section + "." + line.substring(0, equals), k -> new ArrayList<>())
                    .add(line.substring(equals + 1));
        }
        return new SystemdUnit(path, entries);
    }

    /** Every value of {@code Section.Key}, in order; empty when absent. */
    List<String> values(String key) {
        return entries.getOrDefault(key, List.of());
    }

    /** The one value of {@code Section.Key}. */
    String value(String key) {
        List<String> values = values(key);
        if (values.size() != 1) {
            throw new IllegalArgumentException(path + ": " + key + " has " + values.size() + " values (expected: 1)");
        }
        return values.getFirst();
    }

    /** The variables {@code Environment=} sets (NAME=VALUE, several to a line). */
    Map<String, String> environment() {
        Map<String, String> environment = new LinkedHashMap<>();
        for (String line : values("Service.Environment")) {
            for (String assignment : line.strip().split("\\s+")) {
                int equals = assignment.indexOf('=');
                environment.put(assignment.substring(0, equals), assignment.substring(equals + 1));
            }
        }
        return environment;
    }

    /** {@code ExecStart=}'s words with {@code %i} as {@code instance} and {@code ${VAR}} from {@link #environment()}. */
    List<String> execStart(String instance) {
        Map<String, String> environment = environment();
        List<String> words = new ArrayList<>();
        for (String word : value("Service.ExecStart").strip().split("\\s+")) {
            Matcher variable = VARIABLE.matcher(word.replace("%i", instance));
            StringBuilder expanded = new StringBuilder();
            while (variable.find()) {
                String value = environment.get(variable.group(1));
                if (value == null) {
                    throw new IllegalArgumentException(path + ": ExecStart names ${" + variable.group(1)
                            + "}, which no Environment= sets");
                }
                variable.appendReplacement(expanded, Matcher.quoteReplacement(value));
            }
            variable.appendTail(expanded);
            words.add(expanded.toString());
        }
        return words;
    }
}
