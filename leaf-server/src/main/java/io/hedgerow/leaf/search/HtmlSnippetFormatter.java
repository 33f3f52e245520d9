package io.hedgerow.leaf.search;

import org.apache.lucene.search.uhighlight.DefaultPassageFormatter;

/**
 * Snippets as HTML: the matches in {@code <b>} tags, and the document's own text escaped, so a
 * document holding {@code <script>} cannot put markup in a page that shows its snippet. Only the
 * four characters that matter in HTML text and attributes ({@code & < > "}) are escaped, as
 * Lucene's {@code SimpleHTMLEncoder} and Elasticsearch's {@code html} encoder do: Lucene's own
 * {@code escape} flag also turns {@code '} and {@code /} into entities, which every snippet of an
 * English text would then carry.
 */
final class HtmlSnippetFormatter extends DefaultPassageFormatter {
    HtmlSnippetFormatter(String ellipsis) {
        this("<b>", "</b>", ellipsis);
    }

    /** With the caller's tags around matches, put as given (they are markup, not text). */
    HtmlSnippetFormatter(String preTag, String postTag, String ellipsis) {
        super(preTag, postTag, ellipsis, false);
    }

    @Override
    protected void append(StringBuilder dest, String content, int start, int end) {
        for (int i = start; i < end; i++) {
            char c = content.charAt(i);
            switch (c) {
                case '&' -> dest.append("&amp;");
                case '<' -> dest.append("&lt;");
                case '>' -> dest.append("&gt;");
                case '"' -> dest.append("&quot;");
                default -> dest.append(c);
            }
        }
    }
}
