package io.hedgerow.root.http;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads {@code /metrics} (Prometheus text) in tests. */
final class MetricsText {
    private MetricsText() {
    }

    /** The sum of the samples of {@code name} whose labels contain {@code labels} (every sample when empty). */
    static double sum(String scrape, String name, String labels) {
        Matcher matcher = Pattern.compile("^" + Pattern.quote(name) + "(?:\\{([^}]*)})?\\s+(\\S+)$", Pattern.MULTILINE)
                .matcher(scrape);
        double total = 0;
        while (matcher.find()) {
            if (labels.isEmpty() || (matcher.group(1) != null && matcher.group(1).contains(labels))) {
                total += Double.parseDouble(matcher.group(2));
            }
        }
        return total;
    }
}
