package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SentenceSplitterTest {

    @Test
    void cutsAfterATerminatorFollowedBySpaceAndNotALowerCaseLetter() {
        assertThat(sentences("First one. Second one! Third one? «Fourth» one; Fifth"))
                .containsExactly("First one.", "Second one!", "Third one?", "«Fourth» one;", "Fifth");
    }

    @Test
    void keepsOrdinalsFollowedByLowerCaseAndNoBreakSpacesWhole() {
        assertThat(sentences("Am 1. januar hat er 3.5 gesagt. M.\u00a0Wynn, a mis. Mr. Smith"))
                .containsExactly("Am 1. januar hat er 3.5 gesagt.", "M.\u00a0Wynn, a mis.", "Mr.", "Smith");
    }

    @Test
    void cutsAtParagraphsOfTwoOrMoreSpacesEvenWithoutATerminator() {
        assertThat(sentences(", wird seine Bedeutung   Ich freue mich sehr,    daß"))
                .containsExactly(", wird seine Bedeutung", "Ich freue mich sehr,", "daß");
    }

    @Test
    void trimsAndDropsBlankSentences() {
        assertThat(sentences("   A.   ")).containsExactly("A.");
        assertThat(sentences("  ")).isEmpty();
        assertThat(sentences("")).isEmpty();
        assertThat(sentences(".")).containsExactly(".");
        assertThat(sentences(". Next")).containsExactly(".", "Next");
    }

    @Test
    void cutsGreekQuestionsAtTheGreekQuestionMark() {
        assertThat(sentences("του ΜΣΙ;   Κύριε Πρόεδρε; Είναι")).containsExactly("του ΜΣΙ;", "Κύριε Πρόεδρε;", "Είναι");
    }

    @Test
    void everySentenceIsASubstringOfTheTextInOrder() {
        String text = "The next item is the report (A4-0435/98) by Mr McMahon.    Madam President, this report"
                + " concerns the Rhine. At the moment the Commission is involved in discussions.";
        int[] bounds = SentenceSplitter.sentences(text);

        assertThat(bounds.length % 2).isZero();
        for (int i = 0; i + 1 < bounds.length; i++) {
            assertThat(bounds[i]).isLessThan(bounds[i + 1]);
        }
        assertThat(sentences(text)).containsExactly("The next item is the report (A4-0435/98) by Mr McMahon.",
                "Madam President, this report concerns the Rhine.",
                "At the moment the Commission is involved in discussions.");
    }

    private static List<String> sentences(String text) {
        int[] bounds = SentenceSplitter.sentences(text);
        List<String> sentences = new ArrayList<>();
        for (int i = 0; i < bounds.length; i += 2) {
            sentences.add(text.substring(bounds[i], bounds[i + 1]));
        }
        return sentences;
    }
}
