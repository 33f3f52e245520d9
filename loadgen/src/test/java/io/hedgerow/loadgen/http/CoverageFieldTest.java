package io.hedgerow.loadgen.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Reading a tainted answer's document coverage out of the root's JSON by bytes. */
class CoverageFieldTest {
    /** The shape the root writes (JsonResponses.writeSearchResult), with a hit whose text mimics the field. */
    static final String TAINTED = "{\"took_ms\":312.5,\"total_hits\":{\"value\":120,\"relation\":\"eq\"},\"tainted\":true,"
            + "\"coverage\":{\"partitions_total\":16,\"partitions_answered\":15,\"docs_fraction\":0.937512},"
            + "\"hits\":[{\"id\":\"d1\",\"score\":1.5,\"partition\":3,\"fields\":{\"body\":\"\\\"docs_fraction\\\":0.1\"}}]}";

    @Test
    void readsTheCoverageObjectsDocsFractionNotTextInTheHits() {
        assertThat(CoverageField.docsFraction(body(TAINTED))).isEqualTo(0.937512);
    }

    @Test
    void readsWholeNumbersAndANumberThatEndsTheBody() {
        assertThat(CoverageField.docsFraction(body("{\"coverage\":{\"docs_fraction\":1}}"))).isEqualTo(1.0);
        assertThat(CoverageField.docsFraction(body("\"docs_fraction\":0.5"))).isEqualTo(0.5);
        assertThat(CoverageField.docsFraction(body("\"docs_fraction\":0}"))).isEqualTo(0.0);
    }

    @Test
    void isNaNWhenTheBodyDoesNotSayOrSaysNonsense() {
        assertThat(CoverageField.docsFraction(body("{\"tainted\":true,\"hits\":[]}"))).isNaN();
        assertThat(CoverageField.docsFraction(body("{\"docs_fraction\":\"most\"}"))).isNaN();
        assertThat(CoverageField.docsFraction(body("{\"docs_fraction\":1.5}"))).as("out of 0..1").isNaN();
        assertThat(CoverageField.docsFraction(body("{\"docs_fraction\":-0.1}"))).isNaN();
        assertThat(CoverageField.docsFraction(body("{\"docs_fraction\":1e}"))).isNaN();
    }

    @Test
    void readsFromAnOffsetBufferWithoutConsumingIt() {
        ByteBuf buffer = Unpooled.copiedBuffer("xxxx" + TAINTED, StandardCharsets.US_ASCII);
        buffer.skipBytes(4);
        int readerIndex = buffer.readerIndex();
        assertThat(CoverageField.docsFraction(buffer)).isEqualTo(0.937512);
        assertThat(buffer.readerIndex()).isEqualTo(readerIndex);
    }

    private static ByteBuf body(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
    }
}
