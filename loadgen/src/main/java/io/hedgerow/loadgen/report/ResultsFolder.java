package io.hedgerow.loadgen.report;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/** Names and creates the folders and files that results go in. */
final class ResultsFolder {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");
    private static final int MAX_NAME = 60;

    private ResultsFolder() {
    }

    /**
     * Creates {@code <root>/<yyyyMMdd-HHmmss>-<label>/} (the time in {@code zone}), or with
     * {@code -2}, {@code -3}... appended if that exists: two runs never share a folder.
     */
    static Path create(Path root, Instant time, ZoneId zone, String label) throws IOException {
        Files.createDirectories(root);
        String base = STAMP.format(time.atZone(zone)) + "-" + fileName(label);
        for (int n = 1; ; n++) {
            Path folder = root.resolve(n == 1 ? base : base + "-" + n);
            try {
                return Files.createDirectory(folder);
            } catch (FileAlreadyExistsException e) {
                // taken (a run in the same second): try the next suffix
            }
        }
    }

    /** {@code text} as a safe file name: letters, digits, '.', '_' and '-' only, never empty or hidden. */
    static String fileName(String text) {
        String name = text.replaceAll("[^A-Za-z0-9._-]+", "_").replaceAll("^[._]+", "");
        name = name.length() > MAX_NAME ? name.substring(0, MAX_NAME) : name;
        return name.isEmpty() ? "run" : name;
    }

    /** Distinct file names for the phases of one run (phase names need not be distinct, or safe). */
    static final class Names {
        private final Set<String> used = new HashSet<>();

        String next(String phaseName) {
            String base = fileName(phaseName);
            String name = base;
            for (int n = 2; !used.add(name.toLowerCase(Locale.ROOT)); n++) {
                name = base + "-" + n;
            }
            return name;
        }
    }
}
