package io.hedgerow.root.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.QueryPriority;
import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.root.admission.AdmissionControl.Admission;
import io.hedgerow.root.admission.AdmissionControl.Admitted;
import io.hedgerow.root.admission.AdmissionControl.Outcome;
import io.hedgerow.root.admission.AdmissionControl.Permit;
import io.hedgerow.root.admission.AdmissionControl.Refused;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The default admission in front of a model cluster, on a manual ticker: the cluster serves 900
 * searches/s as one processor-sharing server (each search's work drawn from an exponential
 * distribution, every search in flight progressing at the same share), and searches arrive as a
 * Poisson stream with a 1 s deadline, over 2,000 connections. What an open loop at half and at twice
 * the capacity gets back: the shape of issue 30's overload scenario, without a machine's noise.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdmissionOverloadModelTest {
    private static final double CAPACITY = 900;
    private static final long STEP_NANOS = 100_000;
    private static final long DEADLINE_NANOS = 1_000_000_000L;

    private static final class Search {
        final long arrivedNanos;
        double work;
        Permit permit;

        Search(long arrivedNanos, double work) {
            this.arrivedNanos = arrivedNanos;
            this.work = work;
        }
    }

    /** What one run got back: answers per second and their latency from arrival. */
    private record Outcomes(double answeredPerSecond, double refusedPerSecond, double answeredWithin200ms,
            long lateAnswers) {
    }

    private static Outcomes run(double load, Duration length) {
        ManualTicker ticker = new ManualTicker();
        AdmissionControl admission = new AdmissionControl(AdmissionSettings.defaults(), ticker);
        admission.queueCapacityFrom(() -> 2_000);
        SplittableRandom random = new SplittableRandom(7);
        List<Search> running = new ArrayList<>();
        List<Search> started = new ArrayList<>();
        double nextArrivalSeconds = 0;
        long answered = 0;
        long within200ms = 0;
        long late = 0;
        long refused = 0;
        for (long now = 0; now < length.toNanos(); now += STEP_NANOS) {
            ticker.advance(Duration.ofNanos(STEP_NANOS));
            long t = ticker.nanoTime();
            double share = STEP_NANOS / 1e9 / Math.max(1, running.size());
            for (int i = running.size() - 1; i >= 0; i--) {
                Search search = running.get(i);
                search.work -= share;
                if (search.work <= 0) {
                    running.remove(i);
                    long latency = t - search.arrivedNanos;
                    if (latency > DEADLINE_NANOS) {
                        late++;
                    } else {
                        answered++;
                        within200ms += latency <= 200_000_000L ? 1 : 0;
                    }
                    search.permit.release(Outcome.SUCCESS, t);
                }
            }
            running.addAll(started);
            started.clear();
            while (nextArrivalSeconds * 1e9 < now) {
                nextArrivalSeconds += -Math.log(1 - random.nextDouble()) / (CAPACITY * load);
                Search search = new Search(t, -Math.log(1 - random.nextDouble()) / CAPACITY);
                Admission decision = admission.acquire(QueryPriority.INTERACTIVE, t, t + DEADLINE_NANOS,
                        (permit, queued) -> {
                            search.permit = permit;
                            started.add(search);
                        });
                if (decision instanceof Admitted admitted) {
                    search.permit = admitted.permit();
                    running.add(search);
                } else if (decision instanceof Refused) {
                    refused++;
                }
            }
        }
        double seconds = length.toNanos() / 1e9;
        return new Outcomes(answered / seconds, refused / seconds, answered == 0 ? 0 : (double) within200ms / answered,
                late);
    }

    @Test
    void halfTheCapacityIsAnsweredInFullWithoutARefusal() {
        Outcomes half = run(0.5, Duration.ofSeconds(20));
        assertThat(half.refusedPerSecond()).isZero();
        assertThat(half.answeredPerSecond()).isBetween(0.45 * CAPACITY, 0.55 * CAPACITY);
        assertThat(half.lateAnswers()).isZero();
    }

    @Test
    void twiceTheCapacityIsAnsweredAtCapacityAndFastTheRestRefused() {
        Outcomes overload = run(2.0, Duration.ofSeconds(20));
        assertThat(overload.answeredPerSecond()).as("answers/s").isGreaterThan(0.95 * CAPACITY);
        assertThat(overload.refusedPerSecond()).as("refused/s").isGreaterThan(0.8 * CAPACITY);
        assertThat(overload.lateAnswers()).as("answers past the deadline").isZero();
        // Shedding that drained the queue empty before admitting again answered 26% within 200 ms.
        assertThat(overload.answeredWithin200ms()).as("share answered within 200 ms").isGreaterThan(0.9);
    }
}
