package io.hedgerow.root.local;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How to start another JVM running Hedgerow: the java binary, the class path and the flags the
 * current JDK needs (Lucene's vector module, native access, and on JDK 23+ the Unsafe opt-in that
 * keeps protobuf and Netty quiet).
 *
 * @param javaCommand path of the java executable
 * @param classPath   class path holding Hedgerow and its dependencies
 * @param heap        maximum heap, e.g. {@code 1g}, when {@code options} is empty
 * @param extraFlags  flags for every JVM started this way, after the standard ones and {@code options}
 *                    (the launcher's AOT cache for leaves: see {@link #LEAF_JVM_FLAGS_PROPERTY})
 * @param options     the role's JVM options (collector, heap: the configuration's {@code jvm.leaf});
 *                    empty for {@link #DEFAULT_COLLECTOR} and {@code -Xmx<heap>}
 */
public record JavaLauncher(String javaCommand, String classPath, String heap, List<String> extraFlags,
        List<String> options) {
    public static final String MAIN_CLASS = "io.hedgerow.cli.HedgerowCli";

    /**
     * System property holding extra JVM flags for the leaves of a local cluster, one per line. The
     * {@code ./hedgerow} launcher sets it on the root to hand its leaves an AOT cache (JDK 25+), or
     * during {@code ./hedgerow aot train} to record one: only the launcher knows which JDK has it
     * and which cache fits the jar it runs.
     */
    public static final String LEAF_JVM_FLAGS_PROPERTY = "hedgerow.leaf.jvmFlags";

    public JavaLauncher {
        Objects.requireNonNull(javaCommand, "javaCommand");
        Objects.requireNonNull(classPath, "classPath");
        Objects.requireNonNull(heap, "heap");
        extraFlags = List.copyOf(extraFlags);
        options = List.copyOf(options);
    }

    public JavaLauncher(String javaCommand, String classPath, String heap, List<String> extraFlags) {
        this(javaCommand, classPath, heap, extraFlags, List.of());
    }

    public JavaLauncher(String javaCommand, String classPath, String heap) {
        this(javaCommand, classPath, heap, List.of());
    }

    /** The same, with these JVM options instead of the default collector and heap. */
    public JavaLauncher withOptions(List<String> value) {
        return new JavaLauncher(javaCommand, classPath, heap, extraFlags, value);
    }

    /** The JVM this process runs on, with the given class path and the leaf flags of {@link #LEAF_JVM_FLAGS_PROPERTY}. */
    public static JavaLauncher sameJvm(String classPath) {
        String java = ProcessHandle.current().info().command().orElse("java");
        return new JavaLauncher(java, classPath, "1g", flagLines(System.getProperty(LEAF_JVM_FLAGS_PROPERTY)));
    }

    /** The flags of a {@link #LEAF_JVM_FLAGS_PROPERTY} value: one per line, blank lines and surrounding spaces ignored. */
    static List<String> flagLines(String value) {
        if (value == null) {
            return List.of();
        }
        List<String> flags = new ArrayList<>();
        for (String line : value.split("\\R")) {
            String flag = line.strip();
            if (!flag.isEmpty()) {
                if (!flag.startsWith("-")) {
                    throw new IllegalArgumentException(LEAF_JVM_FLAGS_PROPERTY + ": '" + flag
                            + "' (expected: JVM flags starting with '-', one per line)");
                }
                flags.add(flag);
            }
        }
        return flags;
    }

    /**
     * The collector of Hedgerow servers unless their options name another. The parallel collector
     * because a leaf's or root's live data is small and steady: its young pauses measured about 3 ms
     * where G1's took 4 ms (leaf) and 12 ms (root) on 2 cores, and every leaf's pause lands in some
     * queries' tail. The serial collector halves the leaves' pauses but showed no difference in the
     * searches' p99, and ZGC's concurrent threads made it worse (docs/benchmarks/overload.md, the
     * collector comparison).
     */
    public static final String DEFAULT_COLLECTOR = "-XX:+UseParallelGC";

    /** JVM flags every Hedgerow JVM needs on the running JDK, whatever its role's options. */
    public static List<String> jvmFlags() {
        List<String> flags = new ArrayList<>(List.of("--add-modules=jdk.incubator.vector",
                "--enable-native-access=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 23) {
            flags.add("--sun-misc-unsafe-memory-access=allow");
        }
        return flags;
    }

    /** The command line that runs {@code hedgerow <arguments>} in a new JVM. */
    public List<String> command(List<String> arguments) {
        return command(List.of(), arguments);
    }

    /** As {@link #command(List)}, with more JVM flags (e.g. {@code -XX:+ExitOnOutOfMemoryError}). */
    public List<String> command(List<String> moreJvmFlags, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(javaCommand);
        command.addAll(jvmFlags());
        command.addAll(options.isEmpty() ? List.of(DEFAULT_COLLECTOR, "-Xmx" + heap) : options);
        command.addAll(extraFlags);
        command.addAll(moreJvmFlags);
        command.add("-cp");
        command.add(classPath);
        command.add(MAIN_CLASS);
        command.addAll(arguments);
        return command;
    }
}
