package io.hedgerow.root;

import io.hedgerow.common.policy.CompilationQuiet;
import io.hedgerow.common.policy.WarmupConvergence;
import io.hedgerow.common.time.Durations;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;

/**
 * Warms a root's whole request path (HTTP parsing, admission, fan-out, merge, fetch, snippets,
 * JSON) and its leaves' search paths before the root reports ready, by sending it searches over its
 * own HTTP port: a fresh JVM interprets its code for its first seconds, and without this the first
 * users pay for the compiler (p99 of hundreds of milliseconds at half the capacity).
 *
 * <p>The queries come from the index itself, whatever it is: a match-all search's stored fields
 * give words, and each word makes a term, two words an OR, a phrase and an AND, eight an OR, and a
 * prefix, the shapes users send, each query a new one ({@link #query}). Searches go {@code
 * cache=false}, four at a time, until their rate stops rising
 * ({@link WarmupConvergence}: no 2 s window 10% better than the best for 10 s) and the JIT
 * compilers of the root and its leaves have gone quiet ({@link CompilationQuiet}: each compiled
 * for at most 5% of two 2 s intervals in a row), or the longest warm-up allowed has passed. The rate
 * alone stopped too soon: with five JVMs on two cores the compilers themselves held the rate down,
 * so it levelled off while each still compiled for most of a core, and the first load step after
 * {@code /ready} paid for the rest.
 *
 * <p><b>Assumptions and guarantees.</b> Runs on the caller's thread and blocks it for about the
 * duration; never throws for a failed search (a warm-up that cannot search reports what it did).
 */
final class RootWarmup implements AutoCloseable {
    private static final Pattern WORD = Pattern.compile("\\p{L}{4,12}");
    private static final int CONCURRENCY = 4;
    private static final int MAX_WORDS = 200;
    private static final int SHAPES = 6;

    private final HttpClient client;
    private final String base;
    private final LongSupplier nanoTime;
    private final Supplier<Map<String, Long>> compileTimes;

    /**
     * @param tls          the root's own TLS context to trust when its API serves HTTPS; null for plain HTTP
     * @param compileTimes each JVM's total JIT compilation time in ms, by name ({@link CompileTimes})
     */
    RootWarmup(String host, int port, SSLContext tls, LongSupplier nanoTime, Supplier<Map<String, Long>> compileTimes) {
        this.base = (tls == null ? "http://" : "https://") + (host.contains(":") ? "[" + host + "]" : host) + ":" + port
                + "/search?cache=false&q=";
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        this.client = (tls == null ? builder : builder.sslContext(tls)).build();
        this.nanoTime = nanoTime;
        this.compileTimes = compileTimes;
    }

    private static final long WINDOW_NANOS = 2_000_000_000L;
    private static final int STABLE_WINDOWS = 5;
    private static final double IMPROVEMENT = 0.10;
    private static final long JIT_READING_MILLIS = 2_000;
    private static final double JIT_BUSY = 0.05;
    private static final int JIT_QUIET_READINGS = 2;

    /**
     * What a warm-up did.
     *
     * @param converged its search rate stopped rising and the compilers went quiet
     * @param jvms      how many JVMs' compilers the last reading saw
     */
    record Outcome(long searches, long failures, int queries, long nanos, boolean converged, int jvms) {
    }

    /** Warms up until converged, or for {@code longest} at most. */
    Outcome run(Duration longest) throws InterruptedException {
        long start = nanoTime.getAsLong();
        long end = start + longest.toNanos();
        WarmupConvergence convergence = new WarmupConvergence(start, WINDOW_NANOS, STABLE_WINDOWS, IMPROVEMENT);
        AtomicBoolean done = new AtomicBoolean();
        AtomicBoolean jitQuiet = new AtomicBoolean();
        AtomicLong jvms = new AtomicLong();
        Thread jitWatch = Thread.ofPlatform().daemon().name("root-warmup-jit").start(() -> {
            CompilationQuiet quiet = new CompilationQuiet(JIT_BUSY, JIT_QUIET_READINGS);
            try {
                while (!done.get() && nanoTime.getAsLong() - end < 0) {
                    Map<String, Long> reading = compileTimes.get();
                    quiet.reading(nanoTime.getAsLong(), reading);
                    jvms.set(reading.size());
                    jitQuiet.set(quiet.quiet());
                    Thread.sleep(JIT_READING_MILLIS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        List<String> words = words(send("*:*&k=50&stored_fields=true&snippets=true").join());
        AtomicLong searches = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        List<Thread> loops = new ArrayList<>();
        for (int i = 0; i < CONCURRENCY; i++) {
            int offset = i;
            loops.add(Thread.ofPlatform().daemon().name("root-warmup-" + i).start(() -> {
                for (int n = offset; !done.get() && nanoTime.getAsLong() - end < 0; n += CONCURRENCY) {
                    String query = query(words, n);
                    String body = send(URLEncoder.encode(query, StandardCharsets.UTF_8)
                            + (n % 3 == 0 ? "&k=100" : "") + (n % 5 == 0 ? "&snippets=false" : "")).join();
                    searches.incrementAndGet();
                    if (body == null) {
                        failures.incrementAndGet();
                    }
                    synchronized (convergence) {
                        long now = nanoTime.getAsLong();
                        convergence.searchDone(now);
                        if (convergence.converged(now) && jitQuiet.get()) {
                            done.set(true);
                        }
                    }
                }
            }));
        }
        for (Thread loop : loops) {
            loop.join();
        }
        boolean converged = done.getAndSet(true); // set by a loop only once converged; now it stops the JIT watch
        jitWatch.interrupt();
        jitWatch.join();
        return new Outcome(searches.get(), failures.get(), (int) Math.min(searches.get(), distinctQueries(words)),
                nanoTime.getAsLong() - start, converged, (int) jvms.get());
    }

    /** Stops the HTTP client's threads. */
    @Override
    public void close() {
        client.close();
    }

    /** The body of a 200 answer, or null for anything else. */
    private CompletableFuture<String> send(String query) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + query)).timeout(Duration.ofSeconds(10)).build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .handle((response, failure) -> failure == null && response.statusCode() == 200 ? response.body() : null);
    }

    /** Words of a result's text (letters only, 4 to 12 of them, lower-cased, at most {@value #MAX_WORDS}). */
    static List<String> words(String resultJson) {
        Set<String> words = new LinkedHashSet<>();
        if (resultJson != null) {
            Matcher matcher = WORD.matcher(resultJson);
            while (matcher.find() && words.size() < MAX_WORDS) {
                words.add(matcher.group().toLowerCase(Locale.ROOT));
            }
        }
        return List.copyOf(words);
    }

    /** How many distinct queries {@link #query} makes of {@code words}. */
    static long distinctQueries(List<String> words) {
        return words.size() < 2 ? 1 : (long) SHAPES * words.size() * (words.size() - 1);
    }

    /**
     * The {@code n}th warm-up query, of the shapes users send: a term, an OR of two, a phrase, an AND
     * of two, a prefix, an OR of eight. Every query is new until {@link #distinctQueries} have been
     * sent: each pass over the words pairs each one with a different partner. Repeating a short list
     * would warm only the caches' hits; a real load mostly misses them (the leaves' parsed-query
     * cache, the root's known-safe queries), and the paths behind the misses (parsing, cost
     * estimation, canaries) then compiled while serving the first real load step. Just {@code *:*}
     * with fewer than two words.
     */
    static String query(List<String> words, long n) {
        int w = words.size();
        if (w < 2) {
            return "*:*";
        }
        int shape = (int) (n % SHAPES);
        long pair = n / SHAPES;
        int i = (int) (pair % w);
        int j = (int) ((i + 1 + (pair / w) % (w - 1)) % w);
        String a = words.get(i);
        String b = words.get(j);
        return switch (shape) {
            case 0 -> a;
            case 1 -> a + " " + b;
            case 2 -> "\"" + a + " " + b + "\"";
            case 3 -> "+" + a + " +" + b;
            case 4 -> a.substring(0, 4) + "*";
            default -> {
                StringBuilder or = new StringBuilder(b);
                for (int k = 1; k < 8; k++) {
                    or.append(' ').append(words.get((i + k) % w));
                }
                yield or.toString();
            }
        };
    }

    static String describe(Outcome outcome, Duration longest) {
        return String.format(Locale.ROOT, "warmed up in %.1f s (%s): %,d searches of %,d queries, %,d failed",
                outcome.nanos() / 1e9, outcome.converged()
                        ? "its search rate stopped rising and the JIT compilers of " + outcome.jvms() + " JVMs went quiet"
                        : "the most allowed, " + Durations.format(longest),
                outcome.searches(), outcome.queries(), outcome.failures());
    }
}
