package io.hedgerow.leaf.index;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.regex.Pattern;
import org.apache.lucene.util.NumericUtils;

/**
 * Reads a typed field's value from its text (a JSON number or boolean as its JSON text, or a
 * string), the same way when indexing a document and when parsing a filter or a sort value, so the
 * two always agree. Numeric types become one sortable {@code long}, as their points and doc values
 * hold them: a long itself, a double through {@link NumericUtils#doubleToSortableLong}, a date as
 * epoch milliseconds (UTC), a boolean as 0 or 1. Pure.
 */
public final class FieldValues {
    private static final Pattern EPOCH_MILLIS = Pattern.compile("-?\\d{1,19}");

    private FieldValues() {
    }

    /**
     * The sortable long of {@code text} as a value of a {@code type} field.
     *
     * @throws IllegalArgumentException naming the field, the value and what was expected
     */
    public static long toSortableLong(FieldSpec.Type type, String field, String text) {
        return switch (type) {
            case LONG -> parseLong(field, text);
            case DOUBLE -> NumericUtils.doubleToSortableLong(parseDouble(field, text));
            case DATE -> parseDate(field, text);
            case BOOLEAN -> parseBoolean(field, text) ? 1 : 0;
            case TEXT, KEYWORD -> throw new IllegalArgumentException("field '" + field + "' is " + type.name().toLowerCase()
                    + " (expected: a long, double, date or boolean field)");
        };
    }

    static long parseLong(String field, String text) {
        try {
            return Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("field '" + field + "': '" + abbreviate(text)
                    + "' (expected: a whole number between " + Long.MIN_VALUE + " and " + Long.MAX_VALUE + ")");
        }
    }

    static double parseDouble(String field, String text) {
        try {
            double value = Double.parseDouble(text.strip());
            if (Double.isFinite(value)) {
                return value;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("field '" + field + "': '" + abbreviate(text) + "' (expected: a finite number)");
    }

    static boolean parseBoolean(String field, String text) {
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("field '" + field + "': '" + abbreviate(text)
                    + "' (expected: true or false)");
        };
    }

    /** Epoch millis of an ISO 8601 date or date-time (UTC unless it has an offset), or of epoch millis themselves. */
    static long parseDate(String field, String text) {
        String s = text.strip();
        try {
            if (EPOCH_MILLIS.matcher(s).matches()) {
                return Long.parseLong(s);
            }
            if (s.length() == 10) {
                return LocalDate.parse(s).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
            }
            if (s.endsWith("Z") || s.endsWith("z")) {
                return Instant.parse(s.toUpperCase()).toEpochMilli();
            }
            int t = s.indexOf('T');
            if (t > 0 && (s.indexOf('+', t) > 0 || s.indexOf('-', t) > 0)) {
                return OffsetDateTime.parse(s).toInstant().toEpochMilli();
            }
            return LocalDateTime.parse(s).toInstant(ZoneOffset.UTC).toEpochMilli();
        } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("field '" + field + "': '" + abbreviate(text) + "' (expected: an ISO 8601"
                    + " date such as 2004-03-30 or 2004-03-30T10:15:00Z, or epoch milliseconds)");
        }
    }

    private static String abbreviate(String text) {
        return text.length() <= 64 ? text : text.substring(0, 61) + "...";
    }
}
