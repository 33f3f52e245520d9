package io.hedgerow.common.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmCompilationMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The meters every Hedgerow process exports, root or leaf: the JVM's memory, GC pauses, threads,
 * class loading, JIT compilation time, CPU and uptime (Micrometer's binders, as {@code jvm_*}, {@code process_*} and
 * {@code system_*}), and {@code hedgerow_build_info{version,commit}} = 1, so a dashboard can tell
 * which build answers. GC pauses are one of the tail's causes: a leaf's p99 next to its
 * {@code jvm_gc_pause_seconds} says whether they were.
 *
 * <p>{@link #close()} unregisters the GC notification listener {@link JvmGcMetrics} installs on
 * the JVM's collectors; a process that binds these several times (tests) must close each.
 */
public final class ProcessMeters implements AutoCloseable {
    /** The resource Maven filters with the project's version (and {@code -Dhedgerow.commit}). */
    static final String BUILD_RESOURCE = "/hedgerow-build.properties";

    private final JvmGcMetrics gc = new JvmGcMetrics();

    private ProcessMeters() {
    }

    /**
     * Binds the JVM binders and {@code hedgerow_build_info} to {@code registry}.
     *
     * @param role {@code root} or {@code leaf}: a tag of build_info, so one query tells the roles apart
     */
    public static ProcessMeters bindTo(MeterRegistry registry, String role) {
        ProcessMeters meters = new ProcessMeters();
        new JvmMemoryMetrics().bindTo(registry);
        meters.gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        // jvm_compilation_time_ms_total: the root's warm-up waits for every JVM's to stop growing.
        new JvmCompilationMetrics().bindTo(registry);
        if (registry.find("system.cpu.count").meter() == null) {
            // A root's RootMetrics binds it already (the load generator reads its process CPU time).
            new ProcessorMetrics().bindTo(registry);
        }
        new UptimeMetrics().bindTo(registry);
        BuildInfo build = BuildInfo.read();
        Gauge.builder("hedgerow.build.info", () -> 1)
                .description("1, tagged with the build's version and commit (empty when the build did not name it)")
                .tag("version", build.version())
                .tag("commit", build.commit())
                .tag("role", role)
                .strongReference(true)
                .register(registry);
        return meters;
    }

    @Override
    public void close() {
        gc.close();
    }

    /** The version and commit Maven wrote into {@link #BUILD_RESOURCE}; "unknown" outside a Maven build. */
    record BuildInfo(String version, String commit) {
        static BuildInfo read() {
            try (InputStream in = ProcessMeters.class.getResourceAsStream(BUILD_RESOURCE)) {
                if (in == null) {
                    return new BuildInfo("unknown", "");
                }
                Properties properties = new Properties();
                properties.load(in);
                return new BuildInfo(filtered(properties.getProperty("version"), "unknown"),
                        filtered(properties.getProperty("commit"), ""));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + BUILD_RESOURCE, e);
            }
        }

        /** The value, or {@code fallback} when it is missing or an unfiltered {@code ${...}}. */
        private static String filtered(String value, String fallback) {
            return value == null || value.isBlank() || value.startsWith("${") ? fallback : value.trim();
        }
    }
}
