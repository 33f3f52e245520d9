package io.hedgerow.common.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format 0.0.4, for tests that scrape a real
 * {@code /metrics} (no Java library on Maven Central parses it: Prometheus's own parser is Go's
 * {@code expfmt}, the Java clients only write). It checks what Prometheus's parser checks and a
 * little more: the line grammar (names, label names and quoted, escaped values, floats including
 * {@code NaN} and {@code ±Inf}, optional timestamps), one {@code # TYPE} and one {@code # HELP} per
 * family, each before the family's samples, a family's samples in one block, no series twice, and
 * for histograms increasing {@code le} buckets, cumulative counts, a {@code +Inf} bucket equal to
 * {@code _count}, and a {@code _sum}; for summaries {@code quantile} labels in 0..1.
 */
public final class PrometheusText {
    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");

    /** One series' value. */
    public record Sample(String name, Map<String, String> labels, double value) {
    }

    /** A metric family: its {@code # TYPE}, its {@code # HELP}, its samples in order. */
    public record Family(String name, String type, String help, List<Sample> samples) {
    }

    private PrometheusText() {
    }

    /**
     * Parses a whole exposition.
     *
     * @return the families by name, in the order they came
     * @throws IllegalArgumentException naming the line and what was expected, at the first violation
     */
    public static Map<String, Family> parse(String text) {
        if (!text.isEmpty() && !text.endsWith("\n")) {
            throw new IllegalArgumentException("the exposition does not end with a line feed (expected: every line"
                    + " ends with \\n)");
        }
        Map<String, String> types = new LinkedHashMap<>();
        Map<String, String> helps = new LinkedHashMap<>();
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        Set<String> closed = new HashSet<>();
        Set<String> series = new HashSet<>();
        String current = null;
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length - 1; i++) {
            String line = lines[i];
            String where = "line " + (i + 1) + " '" + line + "'";
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith("#")) {
                String[] parts = line.substring(1).trim().split("[ \t]+", 3);
                if (parts.length >= 2 && (parts[0].equals("TYPE") || parts[0].equals("HELP"))) {
                    String name = parts[1];
                    require(METRIC_NAME.matcher(name).matches(), where, "a valid metric name");
                    require(!samples.containsKey(name) || samples.get(name).isEmpty(), where,
                            "# " + parts[0] + " before the family's samples");
                    if (parts[0].equals("TYPE")) {
                        require(parts.length == 3 && TYPES.contains(parts[2]), where,
                                "a type of " + TYPES);
                        require(types.put(name, parts[2]) == null, where, "one # TYPE per family");
                    } else {
                        require(helps.put(name, parts.length == 3 ? unescapeHelp(parts[2], where) : "") == null,
                                where, "one # HELP per family");
                    }
                    if (!name.equals(current)) {
                        require(!closed.contains(name), where, "a family's lines in one block");
                        if (current != null) {
                            closed.add(current);
                        }
                        current = name;
                    }
                    samples.computeIfAbsent(name, n -> new ArrayList<>());
                }
                continue; // any other comment
            }
            Sample sample = sample(line, where);
            String family = familyOf(sample.name(), types);
            if (!family.equals(current)) {
                require(!closed.contains(family), where, "the samples of " + family + " in one block");
                if (current != null) {
                    closed.add(current);
                }
                current = family;
            }
            require(series.add(sample.name() + new TreeMap<>(sample.labels())), where, "no series twice");
            samples.computeIfAbsent(family, n -> new ArrayList<>()).add(sample);
        }
        Map<String, Family> families = new LinkedHashMap<>();
        for (Map.Entry<String, List<Sample>> entry : samples.entrySet()) {
            String name = entry.getKey();
            String type = types.getOrDefault(name, "untyped");
            Family family = new Family(name, type, helps.getOrDefault(name, ""),
                    Collections.unmodifiableList(entry.getValue()));
            switch (type) {
                case "histogram" -> checkHistogram(family);
                case "summary" -> checkSummary(family);
                case "counter" -> family.samples().forEach(s -> require(s.value() >= 0 || Double.isNaN(s.value()),
                        name, "counter values >= 0"));
                default -> { }
            }
            families.put(name, family);
        }
        return families;
    }

    /** The family a sample belongs to: a histogram's or summary's _bucket, _sum, _count go to their base. */
    private static String familyOf(String sampleName, Map<String, String> types) {
        for (String suffix : List.of("_bucket", "_sum", "_count")) {
            if (sampleName.endsWith(suffix)) {
                String base = sampleName.substring(0, sampleName.length() - suffix.length());
                String type = types.get(base);
                if ("histogram".equals(type) || ("summary".equals(type) && !suffix.equals("_bucket"))) {
                    return base;
                }
            }
        }
        return sampleName;
    }

    private static Sample sample(String line, String where) {
        int pos = 0;
        while (pos < line.length() && (Character.isLetterOrDigit(line.charAt(pos)) || line.charAt(pos) == '_'
                || line.charAt(pos) == ':')) {
            pos++;
        }
        String name = line.substring(0, pos);
        require(METRIC_NAME.matcher(name).matches(), where, "a metric name first");
        Map<String, String> labels = new LinkedHashMap<>();
        if (pos < line.length() && line.charAt(pos) == '{') {
            pos++;
            while (true) {
                if (line.charAt(pos) == '}') {
                    pos++;
                    break;
                }
                int eq = line.indexOf('=', pos);
                require(eq > pos, where, "label=\"value\"");
                String label = line.substring(pos, eq);
                require(LABEL_NAME.matcher(label).matches(), where, "a valid label name, not '" + label + "'");
                require(eq + 1 < line.length() && line.charAt(eq + 1) == '"', where, "a quoted label value");
                StringBuilder value = new StringBuilder();
                int p = eq + 2;
                while (true) {
                    require(p < line.length(), where, "a closing quote");
                    char c = line.charAt(p);
                    if (c == '"') {
                        break;
                    }
                    if (c == '\\') {
                        require(p + 1 < line.length(), where, "an escape after \\");
                        char e = line.charAt(p + 1);
                        switch (e) {
                            case '\\' -> value.append('\\');
                            case '"' -> value.append('"');
                            case 'n' -> value.append('\n');
                            default -> throw new IllegalArgumentException(where + ": \\" + e
                                    + " (expected: \\\\, \\\" or \\n in a label value)");
                        }
                        p += 2;
                    } else {
                        value.append(c);
                        p++;
                    }
                }
                require(labels.put(label, value.toString()) == null, where, "each label once");
                pos = p + 1;
                require(pos < line.length(), where, "',' or '}' after a label");
                if (line.charAt(pos) == ',') {
                    pos++;
                } else {
                    require(line.charAt(pos) == '}', where, "',' or '}' after a label");
                }
            }
        }
        require(pos < line.length() && (line.charAt(pos) == ' ' || line.charAt(pos) == '\t'), where,
                "whitespace before the value");
        String[] rest = line.substring(pos).trim().split("[ \t]+");
        require(rest.length == 1 || rest.length == 2, where, "a value and at most a timestamp");
        double value = value(rest[0], where);
        if (rest.length == 2) {
            try {
                Long.parseLong(rest[1]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + ": timestamp '" + rest[1] + "' (expected: an integer of ms)");
            }
        }
        return new Sample(name, Collections.unmodifiableMap(labels), value);
    }

    private static double value(String text, String where) {
        switch (text) {
            case "NaN":
                return Double.NaN;
            case "+Inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
                return Double.NEGATIVE_INFINITY;
            default:
                require(text.matches("[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?"), where,
                        "a float value, not '" + text + "'");
                return Double.parseDouble(text);
        }
    }

    private static void checkHistogram(Family family) {
        Map<Map<String, String>, List<Sample>> buckets = new LinkedHashMap<>();
        Map<Map<String, String>, Double> counts = new LinkedHashMap<>();
        Set<Map<String, String>> sums = new HashSet<>();
        for (Sample s : family.samples()) {
            Map<String, String> rest = new TreeMap<>(s.labels());
            if (s.name().equals(family.name() + "_bucket")) {
                require(rest.remove("le") != null, family.name(), "an le label on every bucket");
                buckets.computeIfAbsent(rest, k -> new ArrayList<>()).add(s);
            } else if (s.name().equals(family.name() + "_count")) {
                counts.put(rest, s.value());
            } else if (s.name().equals(family.name() + "_sum")) {
                sums.add(rest);
            } else {
                throw new IllegalArgumentException(family.name() + ": sample " + s.name()
                        + " (expected: _bucket, _sum or _count in a histogram)");
            }
        }
        require(!buckets.isEmpty(), family.name(), "buckets in a histogram");
        for (Map.Entry<Map<String, String>, List<Sample>> entry : buckets.entrySet()) {
            double lastLe = Double.NEGATIVE_INFINITY;
            double lastCount = 0;
            for (Sample bucket : entry.getValue()) {
                double le = value(bucket.labels().get("le"), family.name() + " le");
                require(le > lastLe, family.name() + entry.getKey(), "buckets in increasing le");
                require(bucket.value() >= lastCount, family.name() + entry.getKey(), "cumulative bucket counts");
                lastLe = le;
                lastCount = bucket.value();
            }
            require(lastLe == Double.POSITIVE_INFINITY, family.name() + entry.getKey(), "a +Inf bucket last");
            require(counts.containsKey(entry.getKey()) && counts.get(entry.getKey()) == lastCount,
                    family.name() + entry.getKey(), "a _count equal to the +Inf bucket");
            require(sums.contains(entry.getKey()), family.name() + entry.getKey(), "a _sum");
        }
    }

    private static void checkSummary(Family family) {
        for (Sample s : family.samples()) {
            if (s.name().equals(family.name())) {
                String q = s.labels().get("quantile");
                require(q != null, family.name(), "a quantile label on a summary's quantiles");
                double quantile = value(q, family.name());
                require(quantile >= 0 && quantile <= 1, family.name(), "quantiles in 0..1");
            }
        }
    }

    private static String unescapeHelp(String text, String where) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                require(i + 1 < text.length(), where, "an escape after \\");
                char e = text.charAt(++i);
                switch (e) {
                    case '\\' -> out.append('\\');
                    case 'n' -> out.append('\n');
                    default -> throw new IllegalArgumentException(where + ": \\" + e
                            + " (expected: \\\\ or \\n in a HELP text)");
                }
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static void require(boolean condition, String where, String expected) {
        if (!condition) {
            throw new IllegalArgumentException(where + " (expected: " + expected + ")");
        }
    }
}
