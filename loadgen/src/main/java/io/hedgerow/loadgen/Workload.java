package io.hedgerow.loadgen;

import io.hedgerow.loadgen.run.RequestSource;
import io.hedgerow.loadgen.scenario.RequestOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** The queries a run sends (interim: uniform over a query file; replaced by query sets and mixes). */
final class Workload {
    private final Path file;
    private final List<String> encodedQueries;

    private Workload(Path file, List<String> encodedQueries) {
        this.file = file;
        this.encodedQueries = encodedQueries;
    }

    static Workload load(Path queries, Path data, long seed, PrintStream out) throws IOException {
        Path file = queries != null ? queries : data.resolve("queries").resolve("europarl-" + seed + ".tsv");
        List<String> encoded = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String query = line.substring(line.indexOf('\t') + 1);
            encoded.add("/search?q=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
        }
        return new Workload(file, encoded);
    }

    RequestSource requests(String mix, RequestOptions options, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        String suffix = options.toQueryString();
        List<String> paths = encodedQueries.stream().map(q -> q + suffix).toList();
        return () -> paths.get(random.nextInt(paths.size()));
    }

    String describe() {
        return file + " (" + encodedQueries.size() + " queries)";
    }
}
