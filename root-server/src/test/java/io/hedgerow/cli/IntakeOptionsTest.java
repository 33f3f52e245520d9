package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.root.cost.BatchAdmissionSettings;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

class IntakeOptionsTest {
    @Command(name = "probe")
    static final class Probe {
        @Mixin
        IntakeOptions intake;
    }

    private static IntakeOptions parse(String... args) {
        Probe probe = new Probe();
        new CommandLine(probe).parseArgs(args);
        return probe.intake;
    }

    @Test
    void batchAdmissionIsOnByDefaultWithTheDefaultCeiling() {
        BatchAdmissionSettings settings = parse().toBatchAdmission();

        assertThat(settings).isEqualTo(BatchAdmissionSettings.defaults());
        assertThat(settings.enabled()).isTrue();
    }

    @Test
    void zeroBatchInFlightTurnsBatchAdmissionOff() {
        BatchAdmissionSettings settings = parse("--batch-in-flight", "0").toBatchAdmission();

        assertThat(settings.enabled()).isFalse();
        assertThat(settings).isEqualTo(BatchAdmissionSettings.off());
    }

    @Test
    void batchInFlightSetsTheCeiling() {
        assertThat(parse("--batch-in-flight", "3").toBatchAdmission().maxInFlight()).isEqualTo(3);
    }

    @Test
    void aNegativeBatchInFlightIsRefusedNamingTheFlag() {
        IntakeOptions intake = parse("--batch-in-flight", "-1");

        assertThatThrownBy(intake::toBatchAdmission).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--batch-in-flight: -1");
    }
}
