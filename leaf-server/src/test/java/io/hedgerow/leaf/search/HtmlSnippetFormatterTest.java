package io.hedgerow.leaf.search;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.apache.lucene.search.uhighlight.Passage;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A snippet's own text is escaped; only the highlight tags are markup. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class HtmlSnippetFormatterTest {
    @Test
    void theDocumentsMarkupIsEscapedAndTheMatchIsBold() {
        String text = "meadow <script>alert(\"x\")</script> & the hedge's edge / path";
        Passage passage = new Passage();
        passage.setStartOffset(0);
        passage.setEndOffset(text.length());
        passage.addMatch(0, 6, new BytesRef("meadow"), 1);

        String snippet = new HtmlSnippetFormatter(" … ").format(new Passage[] {passage}, text);

        assertThat(snippet).isEqualTo(
                "<b>meadow</b> &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; the hedge's edge / path");
    }
}
