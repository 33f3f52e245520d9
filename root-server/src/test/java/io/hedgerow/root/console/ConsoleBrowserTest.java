package io.hedgerow.root.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console end to end: a real root over two real leaves (four Lucene partitions, two copies
 * each) and the console in headless Chromium, driven by Selenium through the system's chromedriver.
 * A query typed into the box shows its hits with coverage and the complete badge; the explain
 * timeline has bars for every partition and for the fetch; the cluster map lists both leaves as
 * ready with their partitions; the live charts have points after a few polls. A document whose
 * title and body hold markup shows that markup as text, and none of it runs. Last, a leaf is
 * stopped: the map shows it down, and searches still cover every partition.
 *
 * <p>Skipped (JUnit assumptions) where {@code /usr/bin/chromedriver} or {@code /usr/bin/chromium} is
 * absent (Debian's {@code chromium-driver} and {@code chromium}). With the environment variable
 * {@code HEDGEROW_CONSOLE_SCREENSHOTS} naming a directory, it also runs a minute of searches (one
 * at a time, going on while the pictures are taken) and saves the screenshots of docs/console.md
 * there ({@code console-*.png}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ConsoleBrowserTest {
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    /** Markup in a document: the console must show it as text. */
    private static final String MARKUP_TITLE = "<img src=x onerror=\"window.pwned=1\"> zulu";
    private static final String MARKUP_BODY = "zulu <script>window.pwned=2</script> and <i>yankee</i> zulu";

    @TempDir
    static Path dataDir;

    private EmbeddedCluster cluster;
    private ChromeDriverService service;
    private ChromeDriver browser;
    private HttpClient http;
    private Path screenshots;

    @BeforeAll
    void start() throws Exception {
        if (!browserInstalled()) {
            return; // each test is then skipped, and says why (below)
        }
        String screenshotDir = System.getenv("HEDGEROW_CONSOLE_SCREENSHOTS");
        screenshots = screenshotDir == null || screenshotDir.isBlank() ? null : Path.of(screenshotDir);
        List<SourceDocument> documents = new ArrayList<>(TestData.documents(41, 400));
        Map<String, String> markup = new LinkedHashMap<>();
        markup.put("title", MARKUP_TITLE);
        markup.put("body", MARKUP_BODY);
        documents.add(new SourceDocument("doc-markup", markup, documents.size() + 1));
        cluster = EmbeddedCluster.builder(dataDir)
                .documents("console", IndexConfig.defaults(), documents)
                .leaves(2).partitions(4).replicas(2).http(0)
                .start();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(PATIENCE).build();

        service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort()
                .withLogOutput(java.io.OutputStream.nullOutputStream()).build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(new File(CHROMIUM.toString()));
        // The browser's console, read after each test: a script error or a CSP refusal fails it.
        options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000",
                "--user-data-dir=" + Files.createDirectories(dataDir.resolve("chromium-profile")));
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(PATIENCE).scriptTimeout(PATIENCE);
    }

    @BeforeEach
    void needsTheBrowser() {
        assumeTrue(Files.isExecutable(CHROMEDRIVER), CHROMEDRIVER + " is absent: install Debian's chromium-driver");
        assumeTrue(Files.isExecutable(CHROMIUM), CHROMIUM + " is absent: install Debian's chromium");
    }

    private static boolean browserInstalled() {
        return Files.isExecutable(CHROMEDRIVER) && Files.isExecutable(CHROMIUM);
    }

    @AfterAll
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (service != null) {
            service.stop();
        }
        if (http != null) {
            http.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void showsHitsTheExplainTimelineTheClusterAndLiveCharts() throws Exception {
        browser.get(base() + (screenshots == null ? "/?poll_ms=500" : "/?poll_ms=1000"));
        assertThat(browser.getTitle()).isEqualTo("Hedgerow console");
        search(20); // traffic for the charts
        if (screenshots == null) {
            checkEveryPanel();
            return;
        }
        // For the pictures: a minute of searches first, one at a time, going on while they are taken.
        ExecutorService load = Executors.newSingleThreadExecutor();
        AtomicBoolean loading = new AtomicBoolean(true);
        Future<?> searching = load.submit(() -> {
            while (loading.get()) {
                search(8);
            }
            return null;
        });
        try {
            new WebDriverWait(browser, Duration.ofSeconds(120)).pollingEvery(Duration.ofSeconds(1))
                    .until(driver -> searching.isDone() || points("chart-rate") >= 65);
            checkEveryPanel();
        } finally {
            loading.set(false);
            load.shutdown();
            assertThat(load.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
        }
        searching.get(); // a search that failed fails the test
    }

    private void checkEveryPanel() throws Exception {
        // A query typed into the box: hits, total, coverage over every partition, not tainted.
        WebElement box = browser.findElement(By.id("q"));
        box.clear();
        box.sendKeys("alpha bravo");
        browser.findElement(By.id("search-button")).click();
        waitFor("hits", () -> browser.findElements(By.cssSelector("#hits li.hit")).size() == 10);
        assertThat(browser.findElement(By.id("coverage")).getText()).startsWith("coverage 4/4 partitions, 100% of documents");
        assertThat(browser.findElement(By.id("tainted")).getText()).isEqualTo("complete");
        assertThat(browser.findElement(By.id("total-hits")).getText()).matches("(≥ )?[0-9,]+ hits");
        WebElement first = browser.findElement(By.cssSelector("#hits li.hit"));
        assertThat(first.findElement(By.className("hit-id")).getText()).startsWith("doc-");
        assertThat(first.findElements(By.cssSelector(".hit-snippet b"))).isNotEmpty();
        screenshot("console-search", browser.findElement(By.id("search-section")));

        // The explain trace: bars for each of the four partitions and for the fetch, drawn once opened.
        browser.findElement(By.cssSelector("#explain-panel summary")).click();
        waitFor("the timeline", () -> browser.findElement(By.id("timeline")).isDisplayed());
        for (int partition = 0; partition < 4; partition++) {
            List<WebElement> bars = browser.findElements(By.cssSelector("#timeline rect.bar[data-partition='" + partition + "']"));
            assertThat(bars).as("bars of partition %d", partition).isNotEmpty();
            assertThat(Double.parseDouble(bars.getFirst().getAttribute("width"))).isPositive();
        }
        assertThat(browser.findElements(By.cssSelector("#timeline rect.bar[data-kind='fetch']"))).isNotEmpty();
        assertThat(browser.findElements(By.cssSelector("#timeline rect.bar.used"))).hasSizeGreaterThanOrEqualTo(4);
        assertThat(browser.findElements(By.cssSelector("#trace-leaves tbody tr"))).hasSize(2);
        screenshot("console-explain", browser.findElement(By.id("explain-panel")));

        // The cluster map: both leaves, ready, each with the partitions it holds.
        waitFor("the cluster map", () -> browser.findElements(By.cssSelector("#cluster-map tr.leaf-row")).size() == 2);
        List<WebElement> leaves = browser.findElements(By.cssSelector("#cluster-map tr.leaf-row"));
        for (int i = 0; i < 2; i++) {
            LeafServer leaf = cluster.leaves().get(i);
            assertThat(leaves.get(i).getText()).contains(leaf.address());
            assertThat(leaves.get(i).getAttribute("data-state")).isEqualTo("ready");
            assertThat(leaves.get(i).findElements(By.cssSelector("td.state-ready[data-partition]"))).hasSize(4);
        }
        assertThat(browser.findElement(By.id("ready")).getText()).isEqualTo("ready");
        screenshot("console-cluster", browser.findElement(By.id("cluster-section")));

        // The live charts: a point per poll after the first, and a line through them.
        waitFor("chart points", () -> points("chart-rate") >= 3 && points("chart-latency") >= 3);
        assertThat(browser.findElements(By.cssSelector("#chart-rate polyline[data-series='rate']"))).isNotEmpty();
        assertThat(browser.findElements(By.cssSelector("#chart-latency polyline"))).isNotEmpty();
        assertThat(browser.findElements(By.cssSelector("#chart-hedges polyline"))).isNotEmpty();
        assertThat(browser.findElements(By.cssSelector("#chart-trouble polyline[data-series='tainted']"))).isNotEmpty();
        screenshot("console-charts", browser.findElement(By.id("charts-section")));
        if (screenshots != null) {
            long height = (Long) ((JavascriptExecutor) browser).executeScript("return document.documentElement.scrollHeight");
            browser.manage().window().setSize(new org.openqa.selenium.Dimension(1280, (int) height + 200));
            ((JavascriptExecutor) browser).executeScript("window.scrollTo(0, 0)");
            Files.write(screenshots.resolve("console-overview.png"), browser.getScreenshotAs(OutputType.BYTES));
        }
    }

    @Test
    void showsMarkupInDocumentsAsTextAndRunsNoneOfIt() throws Exception {
        browser.get(base() + "/");
        WebElement box = browser.findElement(By.id("q"));
        box.sendKeys("zulu");
        browser.findElement(By.id("search-button")).click();
        waitFor("the markup document", () -> browser.findElements(By.cssSelector("#hits li.hit")).size() == 1);

        WebElement hit = browser.findElement(By.cssSelector("#hits li.hit"));
        assertThat(hit.findElement(By.className("hit-title")).getText()).isEqualTo(MARKUP_TITLE);
        assertThat(hit.findElement(By.className("hit-snippet")).getText()).contains("<script>window.pwned=2</script>",
                "<i>yankee</i>");
        assertThat(hit.findElements(By.cssSelector("img, script, i"))).isEmpty();
        assertThat(hit.findElements(By.cssSelector(".hit-snippet b"))).extracting(WebElement::getText).containsOnly("zulu");
        assertThat(((JavascriptExecutor) browser).executeScript("return window.pwned === undefined")).isEqualTo(true);

        // An error's detail (which quotes the query) is text too.
        box.clear();
        box.sendKeys("title:(<img src=y onerror=\"window.pwned=3\">");
        browser.findElement(By.id("search-button")).click();
        waitFor("the error", () -> !browser.findElements(By.id("search-error")).isEmpty());
        assertThat(browser.findElement(By.id("result-summary")).getText()).contains("bad_query");
        assertThat(browser.findElements(By.cssSelector("#result-summary img"))).isEmpty();
        assertThat(((JavascriptExecutor) browser).executeScript("return window.pwned === undefined")).isEqualTo(true);
    }

    /** Last: it stops a leaf. */
    @Test
    @Order(Integer.MAX_VALUE)
    void showsAStoppedLeafDownAndItsPartitionsAnsweredByTheOther() throws Exception {
        browser.get(base() + "/");
        waitFor("both leaves ready", () -> browser.findElements(By.cssSelector("#cluster-map tr.leaf-row[data-state='ready']"))
                .size() == 2);

        cluster.leaves().get(1).close();

        waitFor("leaf 1 down", () -> browser.findElements(By.cssSelector("#cluster-map tr.leaf-row[data-leaf='1'][data-state='down']"))
                .size() == 1);
        WebElement down = browser.findElement(By.cssSelector("#cluster-map tr.leaf-row[data-leaf='1']"));
        assertThat(down.findElements(By.cssSelector("td.state-down[data-partition]"))).hasSize(4);
        assertThat(browser.findElement(By.cssSelector("#cluster-map tr.leaf-row[data-leaf='0']")).getAttribute("data-state"))
                .isEqualTo("ready");
        WebElement box = browser.findElement(By.id("q"));
        box.sendKeys("alpha");
        browser.findElement(By.id("search-button")).click();
        waitFor("hits", () -> !browser.findElements(By.cssSelector("#hits li.hit")).isEmpty());
        assertThat(browser.findElement(By.id("coverage")).getText()).startsWith("coverage 4/4 partitions");
    }

    @AfterEach
    void noScriptErrorsNorRefusedResources() {
        if (browser == null) {
            return;
        }
        List<String> problems = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogEntry::getMessage)
                // The markup test's bad query answers 400, which the browser logs; nothing else may be severe.
                .filter(message -> !message.contains("/search") || !message.contains("400"))
                .toList();
        assertThat(problems).as("severe entries in the browser's console (script errors, CSP refusals)").isEmpty();
    }

    private int points(String chart) {
        String points = browser.findElement(By.id(chart)).getAttribute("data-points");
        return points == null ? 0 : Integer.parseInt(points);
    }

    private void waitFor(String what, java.util.function.BooleanSupplier condition) {
        new WebDriverWait(browser, PATIENCE).withMessage("waiting for " + what).until(driver -> condition.getAsBoolean());
    }

    private String base() {
        return "http://127.0.0.1:" + cluster.httpPort();
    }

    /** {@code count} searches over HTTP, each answered before the next is sent. */
    private void search(int count) throws Exception {
        String[] words = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"};
        for (int i = 0; i < count; i++) {
            String q = words[i % words.length] + "+" + words[(i * 3 + 1) % words.length];
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(base() + "/search?cache=false&q=" + q))
                    .timeout(PATIENCE).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).isEqualTo(200);
        }
    }

    private void screenshot(String name, WebElement element) throws Exception {
        if (screenshots != null) {
            ((JavascriptExecutor) browser).executeScript("arguments[0].scrollIntoView()", element);
            Files.write(screenshots.resolve(name + ".png"), ((TakesScreenshot) element).getScreenshotAs(OutputType.BYTES));
        }
    }
}
