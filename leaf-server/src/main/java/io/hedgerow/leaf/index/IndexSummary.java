package io.hedgerow.leaf.index;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What a finished build produced.
 *
 * @param name            the index name
 * @param dir             the index directory
 * @param docs            documents in the index
 * @param docsRead        valid documents read; more than {@code docs} when an id came again and
 *                        replaced its earlier document
 * @param partitions      micro-partitions
 * @param bytesOnDisk     size of the index directory
 * @param elapsedNanos    time the build took
 * @param badLinesSkipped bad input lines left out (always 0 with {@link BadLinePolicy#FAIL})
 * @param firstBadLines   the first {@value #BAD_LINES_KEPT} of them, in input order
 * @param oldBuildsInUse  earlier builds left in place because a running leaf serves them (a later
 *                        build deletes them once unused)
 */
public record IndexSummary(
        String name,
        Path dir,
        long docs,
        long docsRead,
        int partitions,
        long bytesOnDisk,
        long elapsedNanos,
        long badLinesSkipped,
        List<BadLine> firstBadLines,
        List<String> oldBuildsInUse) {

    /** How many bad lines a summary keeps to show. */
    public static final int BAD_LINES_KEPT = 10;

    public IndexSummary {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(dir, "dir");
        firstBadLines = List.copyOf(firstBadLines);
        oldBuildsInUse = List.copyOf(oldBuildsInUse);
        if (firstBadLines.size() > Math.min(badLinesSkipped, BAD_LINES_KEPT)) {
            throw new IllegalArgumentException("firstBadLines: " + firstBadLines.size()
                    + " (expected: <= min(badLinesSkipped=" + badLinesSkipped + ", " + BAD_LINES_KEPT + "))");
        }
    }

    /** A build that replaced no build still in use. */
    public IndexSummary(String name, Path dir, long docs, long docsRead, int partitions, long bytesOnDisk,
            long elapsedNanos, long badLinesSkipped, List<BadLine> firstBadLines) {
        this(name, dir, docs, docsRead, partitions, bytesOnDisk, elapsedNanos, badLinesSkipped, firstBadLines, List.of());
    }

    public double seconds() {
        return elapsedNanos / 1e9;
    }

    /**
     * A few lines for a person, e.g.
     * <pre>
     * indexed 17,597 docs into 16 partitions in 4.1 s (4,292 docs/s)
     * index 'europarl' in /data/europarl, 38.5 MB on disk
     * </pre>
     * followed, when lines were skipped, by their count and the first few.
     */
    public String render() {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "indexed %s into %s in %.1f s (%,d docs/s)",
                count(docs, "doc"), count(partitions, "partition"), seconds(),
                IndexProgress.docsPerSecond(docsRead, elapsedNanos)));
        if (docsRead > docs) {
            lines.add(count(docsRead - docs, "doc") + " replaced an earlier doc with the same id");
        }
        lines.add(String.format(Locale.ROOT, "index '%s' in %s, %s on disk", name, dir, humanBytes(bytesOnDisk)));
        if (badLinesSkipped > 0) {
            lines.add("skipped " + count(badLinesSkipped, "bad line")
                    + (badLinesSkipped > firstBadLines.size() ? ", the first " + firstBadLines.size() + ":" : ":"));
            firstBadLines.forEach(bad -> lines.add("  " + bad.describe()));
        }
        if (!oldBuildsInUse.isEmpty()) {
            lines.add("kept " + String.join(", ", oldBuildsInUse) + ": a running cluster serves it; the next build"
                    + " removes it once that cluster has stopped");
        }
        return String.join(System.lineSeparator(), lines);
    }

    /** {@code 1 doc}, {@code 17,597 docs}. */
    private static String count(long n, String noun) {
        return String.format(Locale.ROOT, "%,d %s%s", n, noun, n == 1 ? "" : "s");
    }

    /** {@code 812 bytes}, {@code 34.2 KB}, {@code 38.5 MB}, {@code 1.2 GB} (decimal units). */
    static String humanBytes(long bytes) {
        if (bytes < 1_000) {
            return bytes + " bytes";
        }
        String[] units = {"KB", "MB", "GB", "TB"};
        double value = bytes / 1e3;
        int unit = 0;
        while (value >= 999.95 && unit < units.length - 1) {
            value /= 1e3;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
