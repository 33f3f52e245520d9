package io.hedgerow.api;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One named aggregation of a search (Elasticsearch's names), computed at the leaves over the
 * documents that match the query and filter, and merged at the root. Fields must have doc values:
 * {@code terms} takes a keyword, long, double or date field; the others a long, double or date
 * field. The leaves check the field's type; these records check only what needs no index.
 */
public sealed interface Aggregation permits Aggregation.Terms, Aggregation.Range, Aggregation.Histogram,
        Aggregation.DateHistogram, Aggregation.Stats {

    /** Most buckets one search may ask for or return, over all its aggregations (Elasticsearch's search.max_buckets, lower). */
    int MAX_BUCKETS = 10_000;
    /** Most aggregations in one search. */
    int MAX_AGGREGATIONS = 100;

    String field();

    /** Buckets this aggregation may return at most, known before it runs (0 when it depends on the data). */
    default int bucketsAsked() {
        return 0;
    }

    /**
     * The {@code size} most frequent values, by document count (ties by value), from the top
     * {@code shardSize} values of each partition: a value outside a partition's top {@code
     * shardSize} is not counted for that partition, which {@link AggregationResult.Terms#docCountErrorUpperBound()}
     * bounds.
     */
    record Terms(String field, int size, int shardSize) implements Aggregation {
        public static final int DEFAULT_SIZE = 10;

        public Terms {
            requireField(field);
            if (size < 1 || size > MAX_BUCKETS) {
                throw new IllegalArgumentException("terms on '" + field + "': size " + size + " (expected: 1.." + MAX_BUCKETS + ")");
            }
            if (shardSize < size || shardSize > MAX_BUCKETS) {
                throw new IllegalArgumentException("terms on '" + field + "': shard_size " + shardSize + " (expected: size "
                        + size + ".." + MAX_BUCKETS + ")");
            }
        }

        /** With Elasticsearch's default shard size, {@code size * 1.5 + 10} (at most {@link #MAX_BUCKETS}). */
        public static Terms of(String field, int size) {
            return new Terms(field, size, defaultShardSize(size));
        }

        public static int defaultShardSize(int size) {
            return (int) Math.min(MAX_BUCKETS, (long) (size * 1.5 + 10));
        }

        @Override
        public int bucketsAsked() {
            return size;
        }
    }

    /** One bucket per range, in the order given, each counting documents with a value in [from, to). */
    record Range(String field, List<RangeBucket> ranges) implements Aggregation {
        public Range {
            requireField(field);
            ranges = List.copyOf(ranges);
            if (ranges.isEmpty() || ranges.size() > MAX_BUCKETS) {
                throw new IllegalArgumentException("range on '" + field + "': " + ranges.size() + " ranges (expected: 1.."
                        + MAX_BUCKETS + ")");
            }
        }

        @Override
        public int bucketsAsked() {
            return ranges.size();
        }
    }

    /**
     * One range of a {@link Range}: from (inclusive) to (exclusive); a null end is open.
     *
     * @param key the bucket's key; null for Elasticsearch's {@code "from-to"} ({@code *} for an open end)
     */
    record RangeBucket(String key, Double from, Double to) {
        public RangeBucket {
            if (from == null && to == null) {
                throw new IllegalArgumentException("range: neither from nor to (expected: at least one)");
            }
            if (from != null && !Double.isFinite(from) || to != null && !Double.isFinite(to)) {
                throw new IllegalArgumentException("range: from " + from + ", to " + to + " (expected: finite numbers)");
            }
            if (from != null && to != null && from > to) {
                throw new IllegalArgumentException("range: from " + from + " > to " + to + " (expected: from <= to)");
            }
            if (key == null) {
                key = (from == null ? "*" : number(from)) + "-" + (to == null ? "*" : number(to));
            }
        }

        private static String number(double value) {
            return String.valueOf(value); // Elasticsearch's keys print doubles: "10.0-20.0"
        }
    }

    /**
     * Buckets of width {@code interval}, keyed by their lower end ({@code floor(value / interval) *
     * interval}), from the lowest to the highest with a document, empty ones between included (as
     * Elasticsearch's default {@code min_doc_count} 0).
     */
    record Histogram(String field, double interval) implements Aggregation {
        public Histogram {
            requireField(field);
            if (!(interval > 0) || !Double.isFinite(interval)) {
                throw new IllegalArgumentException("histogram on '" + field + "': interval " + interval + " (expected: > 0)");
            }
        }
    }

    /**
     * Buckets of a date (or long: epoch millis) field, in UTC: either of a fixed length ({@code
     * fixedIntervalMillis}, keyed by {@code floor(millis / interval) * interval}) or of a calendar
     * unit (keyed by the unit's start). Empty buckets between the first and the last are included.
     */
    record DateHistogram(String field, long fixedIntervalMillis, CalendarUnit calendarInterval) implements Aggregation {
        private static final Pattern FIXED = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

        public DateHistogram {
            requireField(field);
            if ((fixedIntervalMillis > 0) == (calendarInterval != null)) {
                throw new IllegalArgumentException("date_histogram on '" + field + "': fixed interval " + fixedIntervalMillis
                        + " ms and calendar interval " + calendarInterval + " (expected: exactly one of them)");
            }
            if (fixedIntervalMillis < 0) {
                throw new IllegalArgumentException("date_histogram on '" + field + "': fixed interval " + fixedIntervalMillis
                        + " ms (expected: > 0)");
            }
        }

        public static DateHistogram fixed(String field, long millis) {
            return new DateHistogram(field, millis, null);
        }

        public static DateHistogram calendar(String field, CalendarUnit unit) {
            return new DateHistogram(field, 0, unit);
        }

        /** Elasticsearch's fixed intervals: a whole number and a unit, {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 1d}. */
        public static long parseFixed(String text) {
            Matcher m = FIXED.matcher(text == null ? "" : text.strip());
            long n = m.matches() ? Long.parseLong(m.group(1)) : 0;
            if (n == 0) {
                throw new IllegalArgumentException("fixed_interval: '" + text + "' (expected: a positive whole number and a"
                        + " unit, ms, s, m, h or d, such as 1d or 90m)");
            }
            long unit = switch (m.group(2)) {
                case "ms" -> 1L;
                case "s" -> 1_000L;
                case "m" -> 60_000L;
                case "h" -> 3_600_000L;
                default -> 86_400_000L;
            };
            if (n > Long.MAX_VALUE / unit) {
                throw new IllegalArgumentException("fixed_interval: '" + text + "' (expected: at most "
                        + Long.MAX_VALUE / unit + m.group(2) + ")");
            }
            return n * unit;
        }
    }

    /** Calendar units of a {@link DateHistogram}, in UTC; weeks start on Monday, as ISO 8601's. */
    enum CalendarUnit {
        MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR;

        private static final Map<String, CalendarUnit> NAMES = Map.ofEntries(
                Map.entry("minute", MINUTE), Map.entry("1m", MINUTE), Map.entry("hour", HOUR), Map.entry("1h", HOUR),
                Map.entry("day", DAY), Map.entry("1d", DAY), Map.entry("week", WEEK), Map.entry("1w", WEEK),
                Map.entry("month", MONTH), Map.entry("1M", MONTH), Map.entry("quarter", QUARTER), Map.entry("1q", QUARTER),
                Map.entry("year", YEAR), Map.entry("1y", YEAR));

        /** Elasticsearch's names: {@code month} or {@code 1M}, and so on. */
        public static CalendarUnit parse(String text) {
            CalendarUnit unit = text == null ? null : NAMES.get(text.strip());
            if (unit == null) {
                throw new IllegalArgumentException("calendar_interval: '" + text + "' (expected: minute, hour, day, week,"
                        + " month, quarter or year, or 1m, 1h, 1d, 1w, 1M, 1q, 1y)");
            }
            return unit;
        }

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        private static final long MINUTE_MILLIS = 60_000L;
        private static final long DAY_MILLIS = 86_400_000L;

        /** The start (epoch millis, UTC) of the unit {@code millis} falls in. */
        public long floor(long millis) {
            long day = Math.floorDiv(millis, DAY_MILLIS);
            return switch (this) {
                case MINUTE -> Math.floorDiv(millis, MINUTE_MILLIS) * MINUTE_MILLIS;
                case HOUR -> Math.floorDiv(millis, 60 * MINUTE_MILLIS) * 60 * MINUTE_MILLIS;
                case DAY -> day * DAY_MILLIS;
                // 1970-01-01 was a Thursday: Monday is 3 days before.
                case WEEK -> (day - Math.floorMod(day + 3, 7)) * DAY_MILLIS;
                case MONTH -> java.time.LocalDate.ofEpochDay(day).withDayOfMonth(1).toEpochDay() * DAY_MILLIS;
                case QUARTER -> {
                    java.time.LocalDate date = java.time.LocalDate.ofEpochDay(day);
                    yield date.withDayOfMonth(1).withMonth((date.getMonthValue() - 1) / 3 * 3 + 1).toEpochDay() * DAY_MILLIS;
                }
                case YEAR -> java.time.LocalDate.ofEpochDay(day).withDayOfYear(1).toEpochDay() * DAY_MILLIS;
            };
        }

        /** The start of the unit after the one starting at {@code start}. */
        public long next(long start) {
            long day = Math.floorDiv(start, DAY_MILLIS);
            return switch (this) {
                case MINUTE -> start + MINUTE_MILLIS;
                case HOUR -> start + 60 * MINUTE_MILLIS;
                case DAY -> start + DAY_MILLIS;
                case WEEK -> start + 7 * DAY_MILLIS;
                case MONTH -> java.time.LocalDate.ofEpochDay(day).plusMonths(1).toEpochDay() * DAY_MILLIS;
                case QUARTER -> java.time.LocalDate.ofEpochDay(day).plusMonths(3).toEpochDay() * DAY_MILLIS;
                case YEAR -> java.time.LocalDate.ofEpochDay(day).plusYears(1).toEpochDay() * DAY_MILLIS;
            };
        }

        /** The shortest this unit is, in milliseconds: spans divided by it bound the buckets from above. */
        public long shortestMillis() {
            return switch (this) {
                case MINUTE -> MINUTE_MILLIS;
                case HOUR -> 60 * MINUTE_MILLIS;
                case DAY -> DAY_MILLIS;
                case WEEK -> 7 * DAY_MILLIS;
                case MONTH -> 28 * DAY_MILLIS;
                case QUARTER -> 89 * DAY_MILLIS;
                case YEAR -> 365 * DAY_MILLIS;
            };
        }
    }

    /** Count, min, max, sum and average of the field's values (every value of a multi-valued field). */
    record Stats(String field) implements Aggregation {
        public Stats {
            requireField(field);
        }
    }

    /**
     * Checks a search's aggregations as a whole: names and how many buckets they ask for.
     *
     * @throws IllegalArgumentException naming the problem
     */
    static Map<String, Aggregation> checked(Map<String, Aggregation> aggs) {
        if (aggs == null || aggs.isEmpty()) {
            return Map.of();
        }
        if (aggs.size() > MAX_AGGREGATIONS) {
            throw new IllegalArgumentException("aggs: " + aggs.size() + " aggregations (expected: <= " + MAX_AGGREGATIONS + ")");
        }
        long buckets = 0;
        for (Map.Entry<String, Aggregation> agg : aggs.entrySet()) {
            Objects.requireNonNull(agg.getValue(), "aggregation");
            if (agg.getKey() == null || agg.getKey().isEmpty() || agg.getKey().length() > 128) {
                throw new IllegalArgumentException("aggs: name '" + agg.getKey() + "' (expected: 1..128 characters)");
            }
            buckets += agg.getValue().bucketsAsked();
        }
        if (buckets > MAX_BUCKETS) {
            throw new IllegalArgumentException("aggs: " + buckets + " buckets asked for (expected: <= " + MAX_BUCKETS
                    + " over all aggregations)");
        }
        // Ordered as given, unmodifiable.
        return java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(aggs));
    }

    private static void requireField(String field) {
        Objects.requireNonNull(field, "field");
        if (field.isEmpty()) {
            throw new IllegalArgumentException("field: empty (expected: a field name)");
        }
    }
}
