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
     * The first {@code size} values in {@code order} (by default the most frequent: by document
     * count, ties by value) among those counted in at least {@code minDocCount} documents, from the
     * first {@code shardSize} values of each partition in that order. A value outside a partition's
     * first {@code shardSize} is not counted for that partition, which {@link
     * AggregationResult.Terms#docCountErrorUpperBound()} bounds (Elasticsearch's reasoning: by the
     * partition's last count under {@code _count desc}; unknown, -1, under {@code _count asc}; 0
     * under a key order, where the root keeps only values every partition returned up to).
     *
     * @param minDocCount 1 or more; or 0 (Elasticsearch's), for every value of the field in the index,
     *                    those no matching document has counted 0: in count order they come after the
     *                    counted ones (before them under {@code _count asc}), ties by value
     * @param missing     a value counted for each matching document without one (a String for a
     *                    keyword field, a Long or Double for a number or date field); null for none
     */
    record Terms(String field, int size, int shardSize, int minDocCount, TermsOrder order, Object missing)
            implements Aggregation {
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
            if (minDocCount < 0) {
                throw new IllegalArgumentException("terms on '" + field + "': min_doc_count " + minDocCount
                        + " (expected: >= 0)");
            }
            Objects.requireNonNull(order, "order");
            if (missing != null && !(missing instanceof String || missing instanceof Long || missing instanceof Double)) {
                throw new IllegalArgumentException("terms on '" + field + "': missing " + missing + " (expected: a string or"
                        + " a number)");
            }
            if (missing instanceof Double d && !Double.isFinite(d)) {
                throw new IllegalArgumentException("terms on '" + field + "': missing " + d + " (expected: a finite number)");
            }
        }

        /** Elasticsearch's defaults: min_doc_count 1, by count descending, no missing value. */
        public Terms(String field, int size, int shardSize) {
            this(field, size, shardSize, 1, TermsOrder.COUNT_DESC, null);
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

    /** The order of a {@link Terms}' buckets: Elasticsearch's {@code {"_count": "desc"}} and so on. */
    enum TermsOrder {
        COUNT_DESC("_count", "desc"), COUNT_ASC("_count", "asc"), KEY_ASC("_key", "asc"), KEY_DESC("_key", "desc");

        private final String by;
        private final String direction;

        TermsOrder(String by, String direction) {
            this.by = by;
            this.direction = direction;
        }

        /** {@code _count} or {@code _key}. */
        public String by() {
            return by;
        }

        /** {@code asc} or {@code desc}. */
        public String direction() {
            return direction;
        }

        public boolean byKey() {
            return this == KEY_ASC || this == KEY_DESC;
        }

        /** Elasticsearch's names ({@code _term} is its old name of {@code _key}). */
        public static TermsOrder of(String by, String direction) {
            boolean asc = switch (direction == null ? "" : direction) {
                case "asc" -> true;
                case "desc" -> false;
                default -> throw new IllegalArgumentException("order: '" + direction + "' (expected: asc or desc)");
            };
            return switch (by == null ? "" : by) {
                case "_count" -> asc ? COUNT_ASC : COUNT_DESC;
                case "_key", "_term" -> asc ? KEY_ASC : KEY_DESC;
                default -> throw new IllegalArgumentException("order: by '" + by + "' (expected: _count or _key)");
            };
        }
    }

    /**
     * One bucket per range, in the order given, each counting documents with a value in [from, to).
     *
     * @param keyed answer the buckets as an object by key rather than an array (Elasticsearch's
     *              {@code keyed}); the keys must then be distinct
     */
    record Range(String field, List<RangeBucket> ranges, boolean keyed) implements Aggregation {
        public Range {
            requireField(field);
            ranges = List.copyOf(ranges);
            if (ranges.isEmpty() || ranges.size() > MAX_BUCKETS) {
                throw new IllegalArgumentException("range on '" + field + "': " + ranges.size() + " ranges (expected: 1.."
                        + MAX_BUCKETS + ")");
            }
            if (keyed) {
                java.util.Set<String> keys = new java.util.HashSet<>();
                for (RangeBucket range : ranges) {
                    if (!keys.add(range.key())) {
                        throw new IllegalArgumentException("range on '" + field + "': key '" + range.key() + "' twice"
                                + " (expected: distinct keys when keyed)");
                    }
                }
            }
        }

        public Range(String field, List<RangeBucket> ranges) {
            this(field, ranges, false);
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
     * The bounds of a histogram's buckets that are listed even when empty (Elasticsearch's
     * {@code extended_bounds}): with {@code min_doc_count} 0, buckets run from the lower of the
     * first value's bucket and min's to the higher of the last value's and max's.
     */
    record ExtendedBounds(double min, double max) {
        public ExtendedBounds {
            if (!Double.isFinite(min) || !Double.isFinite(max) || min > max) {
                throw new IllegalArgumentException("extended_bounds: min " + min + ", max " + max
                        + " (expected: finite numbers, min <= max)");
            }
        }
    }

    /**
     * Buckets of width {@code interval}, keyed by their lower end ({@code floor((value - offset) /
     * interval) * interval + offset}), by key. With {@code minDocCount} 0 (Elasticsearch's
     * default) every bucket from the lowest to the highest with a document, empty ones between
     * included (and out to {@code extendedBounds}); otherwise only those with at least {@code
     * minDocCount} documents.
     *
     * @param offset         shifts the buckets' bounds; in [0, interval)
     * @param extendedBounds null for none; only with minDocCount 0
     */
    record Histogram(String field, double interval, int minDocCount, double offset, ExtendedBounds extendedBounds)
            implements Aggregation {
        public Histogram {
            requireField(field);
            if (!(interval > 0) || !Double.isFinite(interval)) {
                throw new IllegalArgumentException("histogram on '" + field + "': interval " + interval + " (expected: > 0)");
            }
            if (minDocCount < 0) {
                throw new IllegalArgumentException("histogram on '" + field + "': min_doc_count " + minDocCount
                        + " (expected: >= 0)");
            }
            if (!(offset >= 0 && offset < interval)) {
                throw new IllegalArgumentException("histogram on '" + field + "': offset " + offset + " (expected: >= 0 and"
                        + " < interval " + interval + ")");
            }
            if (extendedBounds != null && minDocCount > 0) {
                throw new IllegalArgumentException("histogram on '" + field + "': extended_bounds with min_doc_count "
                        + minDocCount + " (expected: min_doc_count 0, as only empty buckets extend)");
            }
            if (extendedBounds != null && (extendedBounds.max() - extendedBounds.min()) / interval + 1 > MAX_BUCKETS) {
                throw new IllegalArgumentException("histogram on '" + field + "': extended_bounds span "
                        + (long) ((extendedBounds.max() - extendedBounds.min()) / interval + 1) + " buckets (expected: <= "
                        + MAX_BUCKETS + ")");
            }
        }

        public Histogram(String field, double interval) {
            this(field, interval, 0, 0, null);
        }
    }

    /**
     * Buckets of a date (or long: epoch millis) field in the local calendar of {@code timeZone}:
     * either of a fixed length ({@code fixedIntervalMillis} of local time) or of a calendar unit,
     * each keyed by its start (epoch millis). {@code offsetMillis} shifts every bound (a bucket's
     * start is the start of (value - offset), plus offset). Buckets between the first and the last
     * are listed even when empty under {@code minDocCount} 0 (the default; out to {@code
     * extendedBounds}), otherwise only those with at least {@code minDocCount} documents.
     *
     * @param timeZone       an IANA zone or a fixed offset; UTC by default
     * @param extendedBounds in epoch millis; null for none; only with minDocCount 0
     */
    record DateHistogram(String field, long fixedIntervalMillis, CalendarUnit calendarInterval, java.time.ZoneId timeZone,
            long offsetMillis, int minDocCount, ExtendedBounds extendedBounds) implements Aggregation {
        private static final Pattern FIXED = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");
        private static final Pattern OFFSET = Pattern.compile("([+-]?)(\\d{1,12})(ms|s|m|h|d)");

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
            Objects.requireNonNull(timeZone, "timeZone");
            timeZone = timeZone.normalized();
            if (Math.abs(offsetMillis) > 366 * 86_400_000L) {
                throw new IllegalArgumentException("date_histogram on '" + field + "': offset " + offsetMillis
                        + " ms (expected: at most a year either way)");
            }
            if (minDocCount < 0) {
                throw new IllegalArgumentException("date_histogram on '" + field + "': min_doc_count " + minDocCount
                        + " (expected: >= 0)");
            }
            if (extendedBounds != null && minDocCount > 0) {
                throw new IllegalArgumentException("date_histogram on '" + field + "': extended_bounds with min_doc_count "
                        + minDocCount + " (expected: min_doc_count 0, as only empty buckets extend)");
            }
            long shortest = calendarInterval == null ? fixedIntervalMillis : calendarInterval.shortestMillis();
            if (extendedBounds != null && (extendedBounds.max() - extendedBounds.min()) / shortest + 1 > MAX_BUCKETS) {
                throw new IllegalArgumentException("date_histogram on '" + field + "': extended_bounds span up to "
                        + (long) ((extendedBounds.max() - extendedBounds.min()) / shortest + 1) + " buckets (expected: <= "
                        + MAX_BUCKETS + ")");
            }
        }

        /** In UTC, without offset, empty buckets between included (the defaults). */
        public DateHistogram(String field, long fixedIntervalMillis, CalendarUnit calendarInterval) {
            this(field, fixedIntervalMillis, calendarInterval, java.time.ZoneOffset.UTC, 0, 0, null);
        }

        public static DateHistogram fixed(String field, long millis) {
            return new DateHistogram(field, millis, null);
        }

        public static DateHistogram calendar(String field, CalendarUnit unit) {
            return new DateHistogram(field, 0, unit);
        }

        /** The start (epoch millis) of the bucket {@code millis} falls in. */
        public long bucketOf(long millis) {
            long shifted = millis - offsetMillis;
            return start(shifted) + offsetMillis;
        }

        /** The start of the bucket after the one starting at {@code start}. */
        public long nextBucket(long start) {
            long shifted = start - offsetMillis;
            if (calendarInterval != null) {
                return calendarInterval.next(shifted, timeZone) + offsetMillis;
            }
            if (timeZone.equals(java.time.ZoneOffset.UTC)) {
                return shifted + fixedIntervalMillis + offsetMillis;
            }
            // The next local start: the local time a fixed interval on, and back to an instant.
            long local = localMillis(shifted) + fixedIntervalMillis;
            return utcOf(local) + offsetMillis;
        }

        private long start(long millis) {
            if (calendarInterval != null) {
                return calendarInterval.floor(millis, timeZone);
            }
            if (timeZone.equals(java.time.ZoneOffset.UTC)) {
                return Math.floorDiv(millis, fixedIntervalMillis) * fixedIntervalMillis;
            }
            // Elasticsearch rounds a fixed interval in local time: floor the local clock reading.
            long local = localMillis(millis);
            return utcOf(Math.floorDiv(local, fixedIntervalMillis) * fixedIntervalMillis);
        }

        private long localMillis(long utc) {
            java.time.Instant instant = java.time.Instant.ofEpochMilli(utc);
            return utc + timeZone.getRules().getOffset(instant).getTotalSeconds() * 1000L;
        }

        /** The instant a local clock reading names (the earlier one in an overlap, the shifted one in a gap). */
        private long utcOf(long local) {
            java.time.LocalDateTime time = java.time.LocalDateTime.ofEpochSecond(Math.floorDiv(local, 1000L),
                    (int) Math.floorMod(local, 1000L) * 1_000_000, java.time.ZoneOffset.UTC);
            return java.time.ZonedDateTime.of(time, timeZone).toInstant().toEpochMilli();
        }

        /** Elasticsearch's fixed intervals: a whole number and a unit, {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 1d}. */
        public static long parseFixed(String text) {
            Matcher m = FIXED.matcher(text == null ? "" : text.strip());
            long n = m.matches() ? Long.parseLong(m.group(1)) : 0;
            if (n == 0) {
                throw new IllegalArgumentException("fixed_interval: '" + text + "' (expected: a positive whole number and a"
                        + " unit, ms, s, m, h or d, such as 1d or 90m)");
            }
            long unit = unitMillis(m.group(2));
            if (n > Long.MAX_VALUE / unit) {
                throw new IllegalArgumentException("fixed_interval: '" + text + "' (expected: at most "
                        + Long.MAX_VALUE / unit + m.group(2) + ")");
            }
            return n * unit;
        }

        /** Elasticsearch's offsets: a signed whole number and a unit, {@code +6h}, {@code -1d}, {@code 30m}. */
        public static long parseOffset(String text) {
            Matcher m = OFFSET.matcher(text == null ? "" : text.strip());
            if (!m.matches()) {
                throw new IllegalArgumentException("offset: '" + text + "' (expected: a signed whole number and a unit,"
                        + " ms, s, m, h or d, such as +6h or -1d)");
            }
            long n = Long.parseLong(m.group(2));
            long unit = unitMillis(m.group(3));
            if (n > 366 * 86_400_000L / unit) {
                throw new IllegalArgumentException("offset: '" + text + "' (expected: at most a year either way)");
            }
            return m.group(1).equals("-") ? -n * unit : n * unit;
        }

        private static long unitMillis(String unit) {
            return switch (unit) {
                case "ms" -> 1L;
                case "s" -> 1_000L;
                case "m" -> 60_000L;
                case "h" -> 3_600_000L;
                default -> 86_400_000L;
            };
        }
    }

    /**
     * Calendar units of a {@link DateHistogram}, in UTC or (the zoned methods) a zone's local
     * calendar; weeks start on Monday, as ISO 8601's.
     */
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

        /**
         * The start (epoch millis) of the unit {@code millis} falls in, in {@code zone}'s local
         * calendar: the local start of the day, week (Monday), month and so on, as an instant. A
         * local start that a daylight-saving gap skips is the first instant after the gap.
         */
        public long floor(long millis, java.time.ZoneId zone) {
            if (zone.equals(java.time.ZoneOffset.UTC)) {
                return floor(millis);
            }
            java.time.ZonedDateTime t = java.time.Instant.ofEpochMilli(millis).atZone(zone);
            java.time.LocalDateTime local = t.toLocalDateTime();
            java.time.LocalDate day = local.toLocalDate();
            java.time.LocalDateTime start = switch (this) {
                case MINUTE -> local.truncatedTo(java.time.temporal.ChronoUnit.MINUTES);
                case HOUR -> local.truncatedTo(java.time.temporal.ChronoUnit.HOURS);
                case DAY -> day.atStartOfDay();
                case WEEK -> day.minusDays(day.getDayOfWeek().getValue() - 1).atStartOfDay();
                case MONTH -> day.withDayOfMonth(1).atStartOfDay();
                case QUARTER -> day.withDayOfMonth(1).withMonth((day.getMonthValue() - 1) / 3 * 3 + 1).atStartOfDay();
                case YEAR -> day.withDayOfYear(1).atStartOfDay();
            };
            if (this == MINUTE || this == HOUR) {
                // At the value's own offset: an hour that a fall-back repeats stays two buckets.
                return start.toInstant(t.getOffset()).toEpochMilli();
            }
            return java.time.ZonedDateTime.of(start, zone).toInstant().toEpochMilli();
        }

        /** The start of the unit after the one starting at {@code start}, in {@code zone}'s local calendar. */
        public long next(long start, java.time.ZoneId zone) {
            if (zone.equals(java.time.ZoneOffset.UTC)) {
                return next(start);
            }
            if (this == MINUTE || this == HOUR) {
                // The unit of the instant a unit later (a unit of local clock, but for offset changes).
                long later = floor(start + shortestMillis(), zone);
                return later > start ? later : start + shortestMillis();
            }
            java.time.LocalDate day = java.time.Instant.ofEpochMilli(start).atZone(zone).toLocalDate();
            java.time.LocalDate next = switch (this) {
                case DAY -> day.plusDays(1);
                case WEEK -> day.plusWeeks(1);
                case MONTH -> day.plusMonths(1);
                case QUARTER -> day.plusMonths(3);
                default -> day.plusYears(1);
            };
            return next.atStartOfDay(zone).toInstant().toEpochMilli();
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

    /**
     * Count, min, max and sum over every value of the field (every value of a multi-valued field).
     *
     * @param missing a value counted once for each matching document without one (Elasticsearch's
     *                {@code missing}); null for none
     */
    record Stats(String field, Double missing) implements Aggregation {
        public Stats {
            requireField(field);
            if (missing != null && !Double.isFinite(missing)) {
                throw new IllegalArgumentException("stats on '" + field + "': missing " + missing + " (expected: a finite number)");
            }
        }

        public Stats(String field) {
            this(field, null);
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
