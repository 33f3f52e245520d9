package io.hedgerow.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HedgeModeTest {

    @Test
    void parsesEachModeInAnyCase() {
        assertThat(HedgeMode.parse("off")).isEqualTo(HedgeMode.OFF);
        assertThat(HedgeMode.parse("Hedged")).isEqualTo(HedgeMode.HEDGED);
        assertThat(HedgeMode.parse(" TIED ")).isEqualTo(HedgeMode.TIED);
    }

    @Test
    void labelsReadBack() {
        for (HedgeMode mode : HedgeMode.values()) {
            assertThat(HedgeMode.parse(mode.label())).isEqualTo(mode);
        }
        assertThat(HedgeMode.HEDGED.label()).isEqualTo("hedged");
    }

    @Test
    void refusesAnUnknownModeNamingItAndTheChoices() {
        assertThatThrownBy(() -> HedgeMode.parse("backup"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hedge: 'backup' (expected: off, hedged or tied)");
        assertThatThrownBy(() -> HedgeMode.parse(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
        assertThatThrownBy(() -> HedgeMode.parse(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("''");
    }
}
