package io.hedgerow.root;

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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Warms a root's whole request path (HTTP parsing, admission, fan-out, merge, fetch, snippets,
 * JSON) and its leaves' search paths before the root reports ready, by sending it searches over its
 * own HTTP port: a fresh JVM interprets its code for its first seconds, and without this the first
 * users pay for the compiler (p99 of hundreds of milliseconds at half the capacity).
 *
 * <p>The queries come from the index itself, whatever it is: a match-all search's stored fields
 * give words, and each word makes a term, two words an OR, a phrase and an AND, and a prefix, the
 * shapes users send. Searches go {@code cache=false}, two at a time, until the duration has passed.
 *
 * <p><b>Assumptions and guarantees.</b> Runs on the caller's thread and blocks it for about the
 * duration; never throws for a failed search (a warm-up that cannot search reports what it did).
 */
final class RootWarmup {
    private static final Pattern WORD = Pattern.compile("\\p{L}{4,12}");
    private static final int CONCURRENCY = 2;
    private static final int MAX_WORDS = 200;

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final LongSupplier nanoTime;

    RootWarmup(String host, int port, LongSupplier nanoTime) {
        this.base = "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + "/search?cache=false&q=";
        this.nanoTime = nanoTime;
    }

    /** What a warm-up did. */
    record Outcome(long searches, long failures, int queries) {
    }

    Outcome run(Duration duration) throws InterruptedException {
        long end = nanoTime.getAsLong() + duration.toNanos();
        List<String> queries = queries(send("*:*&k=50&stored_fields=true&snippets=true").join());
        AtomicLong searches = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        List<Thread> loops = new ArrayList<>();
        for (int i = 0; i < CONCURRENCY; i++) {
            int offset = i;
            loops.add(Thread.ofPlatform().daemon().name("root-warmup-" + i).start(() -> {
                for (int n = offset; nanoTime.getAsLong() - end < 0; n += CONCURRENCY) {
                    String query = queries.get(n % queries.size());
                    String body = send(URLEncoder.encode(query, StandardCharsets.UTF_8)
                            + (n % 3 == 0 ? "&k=100" : "")).join();
                    searches.incrementAndGet();
                    if (body == null) {
                        failures.incrementAndGet();
                    }
                }
            }));
        }
        for (Thread loop : loops) {
            loop.join();
        }
        return new Outcome(searches.get(), failures.get(), queries.size());
    }

    /** The body of a 200 answer, or null for anything else. */
    private CompletableFuture<String> send(String query) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + query)).timeout(Duration.ofSeconds(10)).build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .handle((response, failure) -> failure == null && response.statusCode() == 200 ? response.body() : null);
    }

    /** Queries of the shapes users send, from the words of a result's text; just {@code *:*} without any. */
    static List<String> queries(String resultJson) {
        Set<String> words = new LinkedHashSet<>();
        if (resultJson != null) {
            Matcher matcher = WORD.matcher(resultJson);
            while (matcher.find() && words.size() < MAX_WORDS) {
                words.add(matcher.group().toLowerCase(Locale.ROOT));
            }
        }
        List<String> list = new ArrayList<>(words);
        List<String> queries = new ArrayList<>();
        for (int i = 0; i + 1 < list.size(); i++) {
            String a = list.get(i);
            String b = list.get(i + 1);
            queries.add(a);
            queries.add(a + " " + b);
            queries.add("\"" + a + " " + b + "\"");
            queries.add("+" + a + " +" + b);
            queries.add(a.substring(0, 4) + "*");
        }
        if (queries.isEmpty()) {
            queries.add("*:*");
        }
        return queries;
    }

    static String describe(Outcome outcome, Duration duration) {
        return String.format(Locale.ROOT, "warmed up for %s: %,d searches of %,d queries, %,d failed",
                io.hedgerow.common.time.Durations.format(duration), outcome.searches(), outcome.queries(),
                outcome.failures());
    }
}
