package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.root.admission.AdmissionSettings;
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

    @Test
    void admissionDefaultsAreAdmissionSettingsDefaults() {
        assertThat(parse().toAdmission()).isEqualTo(AdmissionSettings.defaults());
    }

    @Test
    void admissionQueueSetsTheQueuesCapAndZeroMeansNoQueue() {
        assertThat(parse("--admission-queue", "500").toAdmission().maxQueued()).isEqualTo(500);
        assertThat(parse("--admission-queue", "0").toAdmission().maxQueued()).isZero();
        IntakeOptions negative = parse("--admission-queue", "-1");
        assertThatThrownBy(negative::toAdmission).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--admission-queue: -1");
    }

    /** The help's default strings are copies (picocli needs constants): they must say what the defaults say. */
    @Test
    void theHelpStatesTheAdmissionDefaults() {
        AdmissionSettings defaults = AdmissionSettings.defaults();
        var spec = new CommandLine(new Probe()).getCommandSpec();
        assertThat(String.join(" ", spec.findOption("--admission-limit").description()))
                .contains("default: " + defaults.initialLimit() + ")");
        assertThat(String.join(" ", spec.findOption("--admission-min").description()))
                .contains("default: " + defaults.minLimit() + ")");
        assertThat(String.join(" ", spec.findOption("--admission-max").description()))
                .contains("default: " + defaults.maxLimit() + ")");
        assertThat(String.join(" ", spec.findOption("--admission-queue").description()))
                .contains("default: " + defaults.maxQueued() + ")", "at least " + AdmissionSettings.QUEUE_FLOOR);
    }
}
