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
 * @param heap        maximum heap, e.g. {@code 1g}
 */
public record JavaLauncher(String javaCommand, String classPath, String heap) {
    public static final String MAIN_CLASS = "io.hedgerow.cli.HedgerowCli";

    public JavaLauncher {
        Objects.requireNonNull(javaCommand, "javaCommand");
        Objects.requireNonNull(classPath, "classPath");
        Objects.requireNonNull(heap, "heap");
    }

    /** The JVM this process runs on, with the given class path. */
    public static JavaLauncher sameJvm(String classPath) {
        String java = ProcessHandle.current().info().command().orElse("java");
        return new JavaLauncher(java, classPath, "1g");
    }

    /**
     * JVM flags for Hedgerow servers on the running JDK. The parallel collector because a leaf's or
     * root's live data is small and steady: its young pauses measured about 3 ms where G1's took 4 ms
     * (leaf) and 12 ms (root) on 2 cores, and every leaf's pause lands in some queries' tail.
     */
    public static List<String> jvmFlags() {
        List<String> flags = new ArrayList<>(List.of("--add-modules=jdk.incubator.vector",
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"));
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
        command.addAll(moreJvmFlags);
        command.add("-Xmx" + heap);
        command.add("-cp");
        command.add(classPath);
        command.add(MAIN_CLASS);
        command.addAll(arguments);
        return command;
    }
}
