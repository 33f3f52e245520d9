package io.hedgerow.loadgen.queries;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A query set as a UTF-8 text file: comment lines starting with {@code #}, then one query per line
 * as {@code category TAB query}, in Lucene classic query syntax. Blank lines are ignored. The
 * writer puts the set's comments at the top and the queries in category order, and nothing that
 * depends on when it ran, so the same set always gives the same bytes.
 *
 * <pre>
 * # Hedgerow query set: category TAB query (Lucene classic syntax)
 * # index: europarl, 17,597 docs in 16 partitions; vocabulary field: body
 * high_term	que
 * and_high_med	+den +forslaget
 * phrase	"human rights"
 * </pre>
 */
public final class QuerySetFile {
    /** Bad lines quoted in a read error; the count says how many more there were. */
    static final int BAD_LINES_SHOWN = 3;

    private QuerySetFile() {
    }

    /**
     * Writes {@code set} to {@code file}, through a temporary file moved into place, so that a
     * reader never finds half a set (a load run picks up an existing file as it is).
     */
    public static void write(QuerySet set, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path tmp = parent.resolve(file.getFileName() + ".tmp");
        try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            out.write(render(set));
        }
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** The file's text. */
    public static String render(QuerySet set) {
        StringBuilder text = new StringBuilder();
        for (String comment : set.comments()) {
            text.append(comment.isEmpty() ? "#" : "# " + comment).append('\n');
        }
        set.categories().forEach((category, queries) -> {
            for (String query : queries) {
                text.append(category).append('\t').append(query).append('\n');
            }
        });
        return text.toString();
    }

    /**
     * Reads a query set file.
     *
     * @throws IOException naming the file and the first bad lines by number (and how many there
     *                     were), when the file cannot be read or has no queries
     */
    public static QuerySet read(Path file) throws IOException {
        List<String> lines;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            lines = in.lines().toList();
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(file.toString(), null, "no such query set file");
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof CharacterCodingException) {
                throw new IOException("query set " + file + " is not UTF-8 text", e.getCause());
            }
            throw e.getCause();
        }
        return parse(file.toString(), lines);
    }

    /** Parses the lines of a query set file named {@code name} (for messages). */
    static QuerySet parse(String name, List<String> lines) throws IOException {
        List<String> comments = new ArrayList<>();
        Map<String, List<String>> categories = new LinkedHashMap<>();
        List<String> badLines = new ArrayList<>();
        int badCount = 0;
        boolean header = true;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith("#")) {
                if (header) {
                    comments.add(line.startsWith("# ") ? line.substring(2) : line.substring(1));
                }
                continue;
            }
            header = false;
            String problem = problemWith(line);
            if (problem != null) {
                if (badCount++ < BAD_LINES_SHOWN) {
                    badLines.add("line " + (i + 1) + ": " + problem);
                }
                continue;
            }
            int tab = line.indexOf('\t');
            categories.computeIfAbsent(line.substring(0, tab), c -> new ArrayList<>()).add(line.substring(tab + 1).strip());
        }
        if (badCount > 0) {
            String more = badCount > badLines.size() ? "; " + (badCount - badLines.size()) + " more bad lines" : "";
            throw new IOException("query set " + name + ": " + String.join("; ", badLines) + more
                    + " (expected: category TAB query on each line, '#' for comments)");
        }
        if (categories.isEmpty()) {
            throw new IOException("query set " + name + " has no queries (expected: lines of category TAB query;"
                    + " generate one with 'loadgen queries')");
        }
        return new QuerySet(comments, categories);
    }

    /** What is wrong with a query line, or null. */
    private static String problemWith(String line) {
        int tab = line.indexOf('\t');
        if (tab < 0) {
            return "no tab between category and query in '" + abbreviate(line) + "'";
        }
        String category = line.substring(0, tab);
        if (!QuerySet.CATEGORY.matcher(category).matches()) {
            return "category '" + abbreviate(category) + "' (expected: lower-case letters, digits and '_',"
                    + " starting with a letter)";
        }
        String query = line.substring(tab + 1);
        if (query.isBlank()) {
            return "empty query for category '" + category + "'";
        }
        if (query.indexOf('\t') >= 0) {
            return "more than one tab (a query may not hold a tab)";
        }
        return null;
    }

    private static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }
}
