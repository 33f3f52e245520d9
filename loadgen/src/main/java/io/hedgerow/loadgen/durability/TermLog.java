package io.hedgerow.loadgen.durability;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Primary terms as the leaves log them, and the check that no term had two primaries.
 *
 * <p><b>Format</b> (defined here; a leaf started with {@code --term-log FILE} writes it, and
 * {@code ./hedgerow local --zk} starts every leaf with {@code <run dir>/terms/leaf-N.log}): files
 * {@code <run dir>/terms/*.log}, one per leaf, appended to; one line per term change a leaf sees
 * (a term it accepts anew, or another primary named in a term), four fields separated by spaces:
 * <pre>
 * 2026-11-28T06:41:07.512Z 3 7 leaf-1
 * </pre>
 * the time (ISO-8601, UTC), the partition, the new term, and the node that is primary in that term.
 * Lines starting with {@code #} and blank lines are skipped. A term of a partition named with two
 * different primaries, in any files, is a split term: two nodes believed they led the same term,
 * which is what a split brain leaves behind.
 *
 * @param active     whether any term log was found: when false, nothing was checked
 * @param changes    term changes read
 * @param splitTerms the (partition, term) pairs with more than one primary, e.g. {@code partition 3 term 7: leaf-1, leaf-2}
 */
public record TermLog(boolean active, int changes, List<String> splitTerms) {
    public TermLog {
        splitTerms = List.copyOf(splitTerms);
    }

    /** No term log: nothing checked. */
    public static TermLog none() {
        return new TermLog(false, 0, List.of());
    }

    /** Reads every term log under {@code runDir}/terms; {@link #none()} when there is none. */
    public static TermLog read(Path runDir) throws IOException {
        Path dir = runDir.resolve("terms");
        if (!Files.isDirectory(dir)) {
            return none();
        }
        List<String> lines = new ArrayList<>();
        boolean any = false;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.log")) {
            for (Path file : files) {
                any = true;
                for (String line : Files.readAllLines(file)) {
                    lines.add(file.getFileName() + "\t" + line);
                }
            }
        }
        return any ? check(lines) : none();
    }

    /** Checks term-log lines, each prefixed by its source and a tab (for error messages). */
    static TermLog check(List<String> sourcedLines) {
        Map<String, Set<String>> primaries = new HashMap<>();
        int changes = 0;
        for (String sourced : sourcedLines) {
            int tab = sourced.indexOf('\t');
            String source = sourced.substring(0, tab);
            String line = sourced.substring(tab + 1).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] fields = line.split("\\s+");
            if (fields.length != 4) {
                throw new IllegalArgumentException(source + ": '" + line + "' (expected: TIME PARTITION TERM NODE)");
            }
            try {
                Long.parseLong(fields[1]);
                Long.parseLong(fields[2]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(source + ": '" + line + "' (expected: a partition and a term as integers)");
            }
            changes++;
            primaries.computeIfAbsent("partition " + fields[1] + " term " + fields[2], key -> new TreeSet<>()).add(fields[3]);
        }
        List<String> split = new ArrayList<>();
        primaries.forEach((term, nodes) -> {
            if (nodes.size() > 1) {
                split.add(term + ": " + String.join(", ", nodes));
            }
        });
        split.sort(null);
        return new TermLog(true, changes, split);
    }

    /** The final line's part: {@code split terms T}, saying so when nothing was checked. */
    public String describe() {
        return active ? "split terms " + splitTerms.size() : "split terms 0 (no term log: checked nothing)";
    }
}
