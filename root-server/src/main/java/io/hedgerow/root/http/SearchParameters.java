package io.hedgerow.root.http;

import java.util.List;
import java.util.Map;

/**
 * The query string of {@code GET /search} as typed values: each parameter known and given at most
 * once, and read as a string, an integer, a number or a boolean, or an {@link ApiException} naming
 * the parameter and what was expected. What the values mean is {@link SearchRequestParser}'s job.
 */
final class SearchParameters {
    static final List<String> NAMES =
            List.of("q", "k", "size", "from", "timeout_ms", "snippets", "stored_fields", "total_hits_threshold",
                    "track_total_hits", "hedge", "hedge_after_ms", "explain", "priority", "min_coverage", "cache",
                    "routing", "lang", "sort", "fields", "allow_stale");

    private final Map<String, List<String>> parameters;

    private SearchParameters(Map<String, List<String>> parameters) {
        this.parameters = parameters;
    }

    /** Refuses an unknown parameter or one given more than once. */
    static SearchParameters of(Map<String, List<String>> parameters) throws ApiException {
        for (Map.Entry<String, List<String>> parameter : parameters.entrySet()) {
            if (!NAMES.contains(parameter.getKey())) {
                throw ApiException.badRequest("unknown parameter '" + parameter.getKey()
                        + "' (expected one of: " + String.join(", ", NAMES) + ")");
            }
            if (parameter.getValue().size() > 1) {
                throw ApiException.badRequest("parameter '" + parameter.getKey() + "' given "
                        + parameter.getValue().size() + " times (expected: once)");
            }
        }
        return new SearchParameters(parameters);
    }

    /** The value as given; null when absent. */
    String string(String name) {
        List<String> values = parameters.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    Integer integer(String name) throws ApiException {
        Long value = longInteger(name);
        if (value == null) {
            return null;
        }
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw ApiException.badRequest("parameter '" + name + "': " + value + " is out of range");
        }
        return value.intValue();
    }

    Long longInteger(String name) throws ApiException {
        String value = string(name);
        if (value == null) {
            return null;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("parameter '" + name + "': '" + value + "' (expected: an integer)");
        }
    }

    Double number(String name) throws ApiException {
        String value = string(name);
        if (value == null) {
            return null;
        }
        try {
            return Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("parameter '" + name + "': '" + value + "' (expected: a number)");
        }
    }

    /** {@code true}/{@code 1} or {@code false}/{@code 0}. */
    Boolean bool(String name) throws ApiException {
        String value = string(name);
        if (value == null) {
            return null;
        }
        return switch (value) {
            case "true", "1" -> Boolean.TRUE;
            case "false", "0" -> Boolean.FALSE;
            default -> throw ApiException.badRequest("parameter '" + name + "': '" + value + "' (expected: true or false)");
        };
    }
}
