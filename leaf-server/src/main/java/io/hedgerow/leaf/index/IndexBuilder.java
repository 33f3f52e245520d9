package io.hedgerow.leaf.index;

import io.hedgerow.common.time.Ticker;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;

/**
 * Builds an index into a {@link PartitionStore}: every document goes to the partition its id
 * hashes to, within its routing key's partitions when the config has one ({@link Partitioner}), into that partition's Lucene index, replacing any earlier
 * document with the same id, so ids stay unique and indexing is an upsert.
 *
 * <p>A build always starts from nothing, in a new build directory next to the index the store
 * holds (deciding whether a complete one should be kept is the caller's business, see
 * {@link #ensureEuroparl}). Only when every partition is committed does it switch the store to the
 * new build, atomically ({@link PartitionStore#publish}), so an interrupted build is never mistaken
 * for a finished one and the old index serves until the switch. It then deletes the old builds no
 * running leaf holds ({@link PartitionStore#removeUnusedBuilds}); a build still in use stays until a
 * later build finds it unused. A build that fails deletes what it wrote and leaves the old index
 * alone.
 *
 * <p>Which partition holds a document, and (with force-merge) each partition's segment, depend only
 * on the input; the number of threads changes only the speed. One builder may run several builds,
 * one after the other; two builds into the same directory at once are not supported.
 *
 * <p>Progress is reported every second for the first ten seconds, then every tenth of the time
 * elapsed so far, at most every {@value #MAX_REPORT_INTERVAL_SECONDS} s: a million-document build
 * prints a few dozen lines, not hundreds. A build that reported progress also says when it has
 * read everything and starts the final merge and commit, which take a while on a big index.
 */
public final class IndexBuilder {
    private static final long MIN_REPORT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long MAX_REPORT_INTERVAL_SECONDS = 30;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

    private final IndexOptions options;
    private final IndexProgress progress;
    private final Ticker ticker;
    private final Clock clock;

    /** A builder on the real clocks. */
    public IndexBuilder(IndexOptions options, IndexProgress progress) {
        this(options, progress, Ticker.system(), Clock.systemUTC());
    }

    /**
     * @param ticker measures the build and paces progress reports
     * @param clock  stamps the manifest's {@code created_at}
     */
    public IndexBuilder(IndexOptions options, IndexProgress progress, Ticker ticker, Clock clock) {
        this.options = Objects.requireNonNull(options, "options");
        this.progress = Objects.requireNonNull(progress, "progress");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Builds index {@code name} in {@code store} from every entry of {@code source}, replacing
     * whatever index the store held. Does not close {@code source}.
     *
     * @throws BadInputException at the first bad line when the policy is {@link BadLinePolicy#FAIL}
     * @throws IOException       when the input cannot be read or the index cannot be written, or the
     *                           store's directory holds files that are not part of an index
     */
    public IndexSummary build(PartitionStore store, String name, IndexConfig config, DocumentSource source)
            throws IOException {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name: '" + name + "' (expected: 1 to 100 letters, digits, '.', '_' or '-',"
                    + " starting with a letter or digit)");
        }
        long startNanos = ticker.nanoTime();
        store.requireOnlyIndexFiles();
        Files.createDirectories(store.dir());
        String build = store.nextBuildName();
        Reading reading = new Reading(source.name(), config);
        List<Long> partitionDocCounts;
        try (Analyzer analyzer = Analyzers.forConfig(config);
             PartitionWriters writers = PartitionWriters.open(
                     store, build, options.partitions(), analyzer, options.threads(), options.ramBufferMb())) {
            reading.readAll(source, writers, startNanos);
            if (reading.reported) {
                progress.committing(reading.docsRead, options.partitions(), options.forceMerge(),
                        ticker.nanoTime() - startNanos);
            }
            partitionDocCounts = writers.commit(options.forceMerge());
        } catch (Throwable t) {
            try {
                PartitionStore.deleteTree(store.buildDir(build));
            } catch (IOException | RuntimeException suppressed) {
                t.addSuppressed(suppressed);
            }
            throw t;
        }
        long docs = partitionDocCounts.stream().mapToLong(Long::longValue).sum();
        IndexManifest manifest = new IndexManifest(IndexManifest.FORMAT, name, options.partitions(), config,
                List.copyOf(reading.fieldsSeen), source.scale(), docs, partitionDocCounts,
                Instant.now(clock).truncatedTo(ChronoUnit.MILLIS).toString(), build);
        store.publish(manifest);
        List<String> keptInUse = store.removeUnusedBuilds();
        return new IndexSummary(name, store.dir(), docs, reading.docsRead, options.partitions(),
                bytesUnder(store.buildDir(manifest)), ticker.nanoTime() - startNanos, reading.badLines,
                reading.firstBadLines, keptInUse);
    }

    /** Builds from documents made in code; see {@link #build(PartitionStore, String, IndexConfig, DocumentSource)}. */
    public IndexSummary build(PartitionStore store, String name, IndexConfig config, Iterable<SourceDocument> documents)
            throws IOException {
        return build(store, name, config, DocumentSource.of(name, documents));
    }

    /** The state of reading one source: what was seen, and what was bad. */
    private final class Reading {
        final String sourceName;
        final IndexConfig config;
        final DocumentMapper mapper;
        final Partitioner partitioner;
        final Set<String> fieldsSeen = new LinkedHashSet<>();
        final List<BadLine> firstBadLines = new ArrayList<>();
        long badLines;
        long docsRead;
        boolean reported;

        Reading(String sourceName, IndexConfig config) {
            this.sourceName = sourceName;
            this.config = config;
            this.mapper = new DocumentMapper(config);
            this.partitioner = new Partitioner(options.partitions(), config.routing());
        }

        void readAll(DocumentSource source, PartitionWriters writers, long startNanos) throws IOException {
            long expectedDocs = source.expectedDocs().orElse(-1);
            long nextReportNanos = startNanos + MIN_REPORT_INTERVAL_NANOS;
            for (SourceEntry entry = source.next(); entry != null; entry = source.next()) {
                switch (entry) {
                    case BadLine bad -> onBadLine(bad);
                    case SourceDocument doc -> add(doc, writers);
                }
                long now = ticker.nanoTime();
                if (now - nextReportNanos >= 0) {
                    progress.indexed(docsRead, expectedDocs, now - startNanos);
                    reported = true;
                    nextReportNanos = now + reportIntervalNanos(now - startNanos);
                }
            }
        }

        private void add(SourceDocument source, PartitionWriters writers) throws IOException {
            String key = config.routing() == null ? null : source.value(config.routing().field());
            if (config.routing() != null && (key == null || key.isEmpty())) {
                onBadLine(new BadLine(source.lineNumber(), "missing the routing field '" + config.routing().field()
                        + "' (the index is routed by it)"));
                return;
            }
            Document doc;
            try {
                doc = mapper.toDocument(source.id(), source.fields());
            } catch (IllegalArgumentException e) {
                onBadLine(new BadLine(source.lineNumber(), e.getMessage()));
                return;
            }
            for (String field : source.fields().keySet()) {
                FieldSpec spec = config.specOf(field);
                if (spec != null) {
                    fieldsSeen.add(field);
                    String copy = mapper.languageCopyOf(field, spec, source.fields());
                    if (copy != null) {
                        fieldsSeen.add(copy);
                    }
                }
            }
            writers.add(partitioner.partitionOf(source.id(), key), source.id(), doc, source.chars());
            docsRead++;
        }

        private void onBadLine(BadLine bad) throws BadInputException {
            if (options.badLines() == BadLinePolicy.FAIL) {
                throw new BadInputException(sourceName, bad);
            }
            badLines++;
            if (firstBadLines.size() < IndexSummary.BAD_LINES_KEPT) {
                firstBadLines.add(bad);
            }
        }
    }

    /** A tenth of the time so far, between one second and {@value #MAX_REPORT_INTERVAL_SECONDS}. */
    static long reportIntervalNanos(long elapsedNanos) {
        return Math.clamp(elapsedNanos / 10, MIN_REPORT_INTERVAL_NANOS, TimeUnit.SECONDS.toNanos(MAX_REPORT_INTERVAL_SECONDS));
    }

    private static long bytesUnder(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            long bytes = 0;
            for (Path file : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(file)) {
                    bytes += Files.size(file);
                }
            }
            return bytes;
        }
    }

    /**
     * The Europarl index in {@code <dataDir>/europarl}, built first when there is none, when the
     * last build did not finish, or when the one there was built differently (another partition
     * count or config); otherwise the index there is reused as it is, so the corpus is indexed once
     * per machine. Reports what it does, and the build's progress, to {@code progress}.
     */
    public static PartitionStore ensureEuroparl(Path dataDir, int partitions, PrintStream progress) throws IOException {
        PartitionStore store = new PartitionStore(dataDir.resolve(EuroparlSource.NAME));
        String reason = rebuildReason(store, partitions);
        if (reason == null) {
            progress.println("using the europarl index in " + store.dir());
            return store;
        }
        progress.println("indexing europarl into " + store.dir() + " (" + reason + ")");
        IndexBuilder builder = new IndexBuilder(IndexOptions.defaults().withPartitions(partitions),
                IndexProgress.lines(progress::println));
        try (DocumentSource source = EuroparlSource.open()) {
            progress.println(builder.build(store, EuroparlSource.NAME, IndexConfig.europarl(), source).render());
        }
        return store;
    }

    /** Why the Europarl index in {@code store} must be (re)built, or null when it can be used. */
    static String rebuildReason(PartitionStore store, int partitions) {
        if (!store.isComplete()) {
            return Files.isDirectory(store.dir()) ? "the last build did not finish" : "there is none yet";
        }
        IndexManifest manifest;
        try {
            manifest = store.readManifest();
        } catch (IOException e) {
            // An index of an older format (IndexManifest.FORMAT) lands here too: rebuilt, as its message asks.
            return "its " + PartitionStore.MANIFEST_FILE + " is unreadable or of an older format";
        }
        if (manifest.partitions() != partitions) {
            return "it has " + manifest.partitions() + " partitions, not " + partitions;
        }
        if (!IndexConfig.europarl().equals(manifest.config())) {
            return "it was built with another config";
        }
        if (manifest.docCount() != EuroparlSource.DOC_COUNT) {
            return String.format(Locale.ROOT, "it has %,d docs, not %,d", manifest.docCount(), EuroparlSource.DOC_COUNT);
        }
        return null;
    }
}
