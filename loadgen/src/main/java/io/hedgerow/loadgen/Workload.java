package io.hedgerow.loadgen;

import io.hedgerow.leaf.index.EuroparlSource;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.loadgen.http.LoadRequest;
import io.hedgerow.loadgen.queries.GeneratedQueries;
import io.hedgerow.loadgen.queries.QueryMix;
import io.hedgerow.loadgen.queries.QuerySampler;
import io.hedgerow.loadgen.queries.QuerySet;
import io.hedgerow.loadgen.queries.QuerySetFile;
import io.hedgerow.loadgen.queries.QuerySetGenerator;
import io.hedgerow.loadgen.queries.RequestMix;
import io.hedgerow.loadgen.queries.StructuredMix;
import io.hedgerow.loadgen.queries.RoutingMix;
import io.hedgerow.loadgen.run.RequestSource;
import io.hedgerow.loadgen.scenario.RequestOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The queries a load run sends: a query set file, and request sources that draw from it by a mix.
 * Without a file, the Europarl index's set for the run's seed, {@code <data>/queries/europarl-<seed>.tsv},
 * generated from {@code <data>/europarl} the first time it is needed and reused after.
 */
public final class Workload {
    private final Path file;
    private final QuerySet set;

    Workload(Path file, QuerySet set) {
        this.file = file;
        this.set = set;
    }

    /**
     * Loads the query set in {@code queries}, or when that is null the default set for
     * {@code seed}, generating it (and saying so on {@code out}) when it does not exist yet.
     *
     * @throws IOException with a one-line message: the file is missing or bad, or there is no index
     *                     to generate the default set from
     */
    public static Workload load(Path queries, Path data, long seed, PrintStream out) throws IOException {
        if (queries != null) {
            return new Workload(queries, QuerySetFile.read(queries));
        }
        Path file = defaultFile(data, seed);
        if (Files.isRegularFile(file)) {
            return new Workload(file, QuerySetFile.read(file));
        }
        PartitionStore store = new PartitionStore(data.resolve(EuroparlSource.NAME));
        if (!store.isComplete()) {
            throw new NoSuchFileException(store.dir().toString(), null, "no Europarl index to generate the query set"
                    + " from; run ./hedgerow index first (or give a query file)");
        }
        out.printf("Generating query set from %s (seed %d)... ", data.resolve(EuroparlSource.NAME), seed);
        out.flush();
        GeneratedQueries generated = QuerySetGenerator.generate(store, seed, QuerySetGenerator.DEFAULT_PER_CATEGORY);
        QuerySetFile.write(generated.set(), file);
        out.printf("wrote %d queries in %d categories to %s%n", generated.set().size(),
                generated.set().categories().size(), file);
        return new Workload(file, generated.set());
    }

    /** Where the default query set for {@code seed} lives. */
    public static Path defaultFile(Path data, long seed) {
        return data.resolve("queries").resolve(EuroparlSource.NAME + "-" + seed + ".tsv");
    }

    public Path file() {
        return file;
    }

    public QuerySet querySet() {
        return set;
    }

    /** {@link #requests(String, RequestOptions, RequestMix, long)} of the plain request mix. */
    public RequestSource requests(String mix, RequestOptions options, long seed) {
        return requests(mix, options, RequestMix.PLAIN, seed);
    }

    /**
     * A source of searches drawn from the set by {@code mix} (null: the default mix, restricted to
     * the set's categories), each with {@code options}: with the plain request mix {@code GET
     * /search?q=...} paths, with the structured one {@code POST /search} JSON bodies of the same
     * queries ({@link StructuredMix}). Every request is built here, once; {@code next()} only picks one.
     *
     * <p>The source is not thread-safe: it is meant for the one event loop that sends a phase.
     *
     * @throws IllegalArgumentException when the mix does not parse or names a category the set
     *                                  lacks, or the structured mix is asked with routing values
     */
    public RequestSource requests(String mix, RequestOptions options, RequestMix requestMix, long seed) {
        QueryMix weights = mix == null ? QueryMix.defaultFor(set) : QueryMix.parse(mix);
        QuerySampler sampler = QuerySampler.of(set, weights, seed);
        List<String> queries = sampler.queries();
        if (requestMix.structured()) {
            return structured(sampler, StructuredMix.build(queries, options, seed), seed, requestMix.only());
        }
        String parameters = options == null ? "" : options.toQueryString();
        LoadRequest[] paths = new LoadRequest[queries.size()];
        for (int i = 0; i < paths.length; i++) {
            paths[i] = LoadRequest.get("/search?q=" + URLEncoder.encode(queries.get(i), StandardCharsets.UTF_8) + parameters);
        }
        if (options == null || options.routing() == null) {
            return () -> paths[sampler.next()];
        }
        RoutingMix routing = RoutingMix.parse(options.routing());
        LoadRequest[][] routed = new LoadRequest[routing.values().size()][paths.length];
        for (int r = 0; r < routed.length; r++) {
            String value = "&routing=" + URLEncoder.encode(routing.values().get(r), StandardCharsets.UTF_8);
            for (int i = 0; i < paths.length; i++) {
                routed[r][i] = LoadRequest.get(paths[i].uri() + value);
            }
        }
        // The routing draw has its own stream, so the queries sent are those of the same seed without routing.
        SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        return () -> routed[routing.pick(random)][sampler.next()];
    }

    /** Each request a shape by its share, or {@code only} that one (null: by share). */
    private static RequestSource structured(QuerySampler sampler, StructuredMix mix, long seed,
            StructuredMix.Shape only) {
        LoadRequest[][] bodies = new LoadRequest[StructuredMix.Shape.values().length][mix.size()];
        for (int shape = 0; shape < bodies.length; shape++) {
            for (int i = 0; i < mix.size(); i++) {
                bodies[shape][i] = LoadRequest.postJson("/search", mix.body(shape, i));
            }
        }
        if (only != null) {
            LoadRequest[] shaped = bodies[only.ordinal()];
            return () -> shaped[sampler.next()];
        }
        // The shape draw has its own stream, so the queries sent are those of the plain mix of the same seed.
        SplittableRandom random = new SplittableRandom(seed ^ 0x5EA7C4L);
        return () -> bodies[mix.pickShape(random)][sampler.next()];
    }

    /** {@code FILE (N queries: high_term 200, ...)}. */
    public String describe() {
        return file + " (" + set.size() + " queries: " + set.countsText() + ")";
    }
}
