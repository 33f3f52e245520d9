package io.hedgerow.root.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Admission of batch sub-requests per leaf, scripted: places up to the limit, the rest waiting in
 * order and handed a place as one frees, leaves independent, canaries forced in, and nothing held
 * when admission is off.
 */
class BatchAdmissionTest {
    private final ManualTicker ticker = new ManualTicker();
    private final List<String> ran = new ArrayList<>();

    @Test
    void admitsUpToTheLimitPerLeafAndQueuesTheRestInOrder() {
        BatchAdmission admission = admission(2); // the limit starts at its floor, 2 here
        assertThat(admission.admit(0, run("a"))).isTrue();
        assertThat(admission.admit(0, run("b"))).isTrue();
        assertThat(admission.admit(0, run("c"))).isFalse();
        assertThat(admission.admit(0, run("d"))).isFalse();
        assertThat(admission.admit(1, run("other leaf"))).as("leaves are independent").isTrue();
        assertThat(admission.inFlight(0)).isEqualTo(2);
        assertThat(admission.waiting(0)).isEqualTo(2);

        admission.release(0).forEach(Runnable::run);
        assertThat(ran).containsExactly("c");
        assertThat(admission.inFlight(0)).as("c holds the freed place").isEqualTo(2);
        admission.release(0).forEach(Runnable::run);
        admission.release(0).forEach(Runnable::run);
        assertThat(ran).containsExactly("c", "d");
        assertThat(admission.inFlight(0)).isEqualTo(1);
        assertThat(admission.waiting(0)).isZero();
    }

    @Test
    void aNewArrivalWaitsBehindThoseAlreadyWaiting() {
        BatchAdmission admission = admission(1);
        admission.admit(0, run("a"));
        admission.admit(0, run("b"));
        List<Runnable> handedOver = admission.release(0);
        // b holds the place now; c comes after it even though nothing else is in flight but b.
        assertThat(admission.admit(0, run("c"))).isFalse();
        handedOver.forEach(Runnable::run);
        admission.release(0).forEach(Runnable::run);
        assertThat(ran).containsExactly("b", "c");
    }

    @Test
    void aForcedCanaryTakesAPlaceOverTheLimit() {
        BatchAdmission admission = admission(1);
        admission.admit(0, run("a"));
        admission.forceAdmit(0);
        assertThat(admission.inFlight(0)).isEqualTo(2);
        assertThat(admission.admit(0, run("b"))).isFalse();

        assertThat(admission.release(0)).as("still at the limit").isEmpty();
        admission.release(0).forEach(Runnable::run);
        assertThat(ran).containsExactly("b");
    }

    @Test
    void offAdmitsEverythingAndHoldsNothing() {
        BatchAdmission admission = new BatchAdmission(BatchAdmissionSettings.off(), 2, ticker);
        for (int i = 0; i < 100; i++) {
            assertThat(admission.admit(0, run("x"))).isTrue();
        }
        assertThat(admission.inFlight(0)).isZero();
        assertThat(admission.release(0)).isEmpty();
        assertThat(admission.enabled()).isFalse();
    }

    @Test
    void refusesAReleaseWithoutAPlace() {
        BatchAdmission admission = admission(1);
        assertThatThrownBy(() -> admission.release(1)).isInstanceOf(IllegalStateException.class)
                .hasMessage("release: leaf 1 holds no batch place (expected: one release per place)");
    }

    private BatchAdmission admission(int floor) {
        return new BatchAdmission(new BatchAdmissionSettings(8, floor, Duration.ofSeconds(1), 1.5, Duration.ofMillis(2),
                10, 20), 2, ticker);
    }

    private Runnable run(String name) {
        return () -> ran.add(name);
    }
}
