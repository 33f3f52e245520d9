package io.hedgerow.leaf.index;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code hedgerow index}: builds an index from a JSON-lines file or a bundled corpus. Progress and
 * the summary go to the command line's out stream, errors to its err stream as one line each.
 * Exit codes: 0 built (or already complete and left alone), 1 failed, 2 usage error.
 */
@Command(name = "index", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Builds a search index split into micro-partitions, from a JSON-lines file or a bundled corpus.",
            "Rerunning is safe: an unfinished index is rebuilt, a complete one is kept unless --force is given.",
            "See docs/indexing.md for the input and config formats."})
public final class IndexCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--input", paramLabel = "FILE",
            description = "JSON-lines file to index, one object with an \"id\" and string fields per line"
                    + " (.gz is decompressed). Default: none, index the --corpus.")
    private Path input;

    @Option(names = "--corpus", paramLabel = "NAME",
            completionCandidates = IndexCommand.KnownCorpora.class,
            description = "Bundled corpus to index when there is no --input: ${COMPLETION-CANDIDATES}."
                    + " Default: europarl.")
    private String corpus;

    @Option(names = "--scale", paramLabel = "N",
            description = "Make the corpus N times bigger, 1.." + ScaledEuroparlSource.MAX_SCALE + ": the corpus itself,"
                    + " then N-1 copies of it whose documents recombine its sentences (new ids, 17598 on)."
                    + " Not with --input. Default: 1.")
    private Integer scale;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Index config JSON file. Default: every field is searchable stored text for --input;"
                    + " the corpus's own config for --corpus.")
    private Path configFile;

    @Option(names = "--name", paramLabel = "NAME",
            description = "Index name. Default: the corpus name (europarl-xN with --scale N), or the input file name"
                    + " without its extension.")
    private String name;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "" + IndexOptions.DEFAULT_PARTITIONS,
            description = "Micro-partitions, 1..10000. Default: ${DEFAULT-VALUE}.")
    private int partitions;

    @Option(names = "--data", paramLabel = "DIR", defaultValue = "data",
            description = "Directory that holds indexes. Default: ${DEFAULT-VALUE}.")
    private Path dataDir;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Directory to write this index to. Default: <data>/<name>.")
    private Path outDir;

    @Option(names = "--skip-bad",
            description = "Skip bad input lines, count them and report the first few. Default: stop at the first.")
    private boolean skipBad;

    @Option(names = "--force",
            description = "Rebuild even when a complete index is already there. Default: keep it.")
    private boolean force;

    @Option(names = "--routing", paramLabel = "FIELD[:N]",
            description = "Route documents by the value of FIELD: each value's documents go to N consecutive partitions"
                    + " (default 1), and a search that names the value (routing=VALUE) asks only those. Overrides the"
                    + " config's \"routing\". Default: the config's, or none (documents by id).")
    private String routing;

    @Option(names = "--no-merge",
            description = "Do not merge each partition into one segment at the end. Default: merge.")
    private boolean noMerge;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Corpus chosenCorpus = validateOptions();
        int copies = scale != null ? scale : 1;
        String indexName = name != null ? name
                : chosenCorpus != null ? chosenCorpus.indexName(copies) : withoutExtension(input.getFileName().toString());
        PartitionStore store = new PartitionStore(outDir != null ? outDir : dataDir.resolve(indexName));
        try {
            if (store.isComplete() && !force) {
                String unusable = unusableReason(store);
                if (unusable == null) {
                    out.println(describeExisting(store, copies));
                    out.flush();
                    return 0;
                }
                // It could not be served anyway: rebuilt from its source, as the refusal asks.
                out.println("rebuilding index '" + indexName + "' in " + store.dir() + ": " + unusable);
                out.flush();
            }
            IndexConfig config = configFile != null ? IndexConfig.read(configFile)
                    : chosenCorpus != null ? chosenCorpus.config() : IndexConfig.defaults();
            if (routing != null) {
                config = config.withRouting(Routing.parse(routing));
            }
            IndexOptions options = IndexOptions.defaults()
                    .withPartitions(partitions)
                    .withBadLines(skipBad ? BadLinePolicy.SKIP : BadLinePolicy.FAIL)
                    .withForceMerge(!noMerge);
            IndexBuilder builder = new IndexBuilder(options, IndexProgress.lines(line -> {
                out.println(line);
                out.flush();
            }));
            if (copies > 1) {
                // Loading and splitting the corpus takes a few seconds before the first progress line.
                out.printf(Locale.ROOT, "loading %s and splitting its sentences, to make it %,d times bigger%n",
                        chosenCorpus.corpusName(), copies);
                out.flush();
            }
            try (DocumentSource source = chosenCorpus != null ? chosenCorpus.open(copies) : JsonlSource.open(input, config)) {
                out.println(builder.build(store, indexName, config, source).render());
            }
            out.flush();
            return 0;
        } catch (BadInputException e) {
            err.println("index: " + e.getMessage() + " (use --skip-bad to skip bad lines)");
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            err.println("index: " + oneLine(e));
        }
        err.flush();
        return 1;
    }

    /** The corpus to index, or null for --input; throws picocli's usage error (exit 2) for bad options. */
    private Corpus validateOptions() {
        if (partitions < 1 || partitions > Partitioner.MAX_PARTITIONS) {
            throw new ParameterException(spec.commandLine(),
                    "--partitions: " + partitions + " (expected: 1.." + Partitioner.MAX_PARTITIONS + ")");
        }
        if (input != null && corpus != null) {
            throw new ParameterException(spec.commandLine(), "--input and --corpus: give one or the other, not both");
        }
        if (scale != null && (scale < 1 || scale > ScaledEuroparlSource.MAX_SCALE)) {
            throw new ParameterException(spec.commandLine(),
                    "--scale: " + scale + " (expected: 1.." + ScaledEuroparlSource.MAX_SCALE + ")");
        }
        if (input != null && scale != null) {
            throw new ParameterException(spec.commandLine(),
                    "--scale works only on a bundled corpus (--corpus), not on --input");
        }
        if (input != null) {
            return null;
        }
        try {
            return Corpus.named(corpus != null ? corpus : Corpus.EUROPARL.corpusName());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--" + e.getMessage());
        }
    }

    /** Why a complete index cannot be used (an older format, an unreadable manifest), or null. */
    private static String unusableReason(PartitionStore store) {
        try {
            store.readManifest();
            return null;
        } catch (IOException | UncheckedIOException e) {
            return oneLine(e);
        }
    }

    private String describeExisting(PartitionStore store, int copies) throws IOException {
        IndexManifest manifest = store.readManifest();
        String text = String.format(Locale.ROOT, "index '%s' in %s is already complete: %,d docs in %,d partitions, built %s",
                manifest.name(), store.dir(), manifest.docCount(), manifest.partitions(), manifest.createdAt());
        if (manifest.partitions() != partitions) {
            text += String.format(Locale.ROOT, " (not the %,d partitions asked for)", partitions);
        }
        if (manifest.scale() != copies) {
            text += String.format(Locale.ROOT, " (at scale %,d, not the %,d asked for)", manifest.scale(), copies);
        }
        Routing built = manifest.config().routing();
        if (routing != null && !Routing.parse(routing).equals(built)) {
            text += " (routed by " + (built == null ? "nothing" : built) + ", not the " + routing + " asked for)";
        }
        return text + "; use --force to rebuild it";
    }

    private static String withoutExtension(String fileName) {
        String name = fileName.endsWith(".gz") ? fileName.substring(0, fileName.length() - 3) : fileName;
        int dot = name.lastIndexOf('.');
        return dot > 0 ? name.substring(0, dot) : name;
    }

    private static String oneLine(Exception e) {
        String message = switch (e) {
            case NoSuchFileException missing when missing.getReason() == null -> "no such file: " + missing.getFile();
            case AccessDeniedException denied when denied.getReason() == null -> "permission denied: " + denied.getFile();
            default -> e.getMessage() != null ? e.getMessage() : e.toString();
        };
        return message.replaceAll("\\s*\\R\\s*", " ");
    }

    /** The corpus names, for the help text. */
    static final class KnownCorpora implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Corpus.names().iterator();
        }
    }
}
