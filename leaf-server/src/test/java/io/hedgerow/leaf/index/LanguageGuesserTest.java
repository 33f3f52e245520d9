package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LanguageGuesserTest {

    @Test
    void tellsLanguagesApartBySeedWordsAndWhatTheyTeach() {
        List<String> texts = List.of(
                "The Commission has presented a proposal and we are of the opinion that it is good.",
                "Die Kommission hat einen Vorschlag vorgelegt, und wir sind der Meinung, dass er gut ist.",
                "La Commission a présenté une proposition et nous pensons qu'elle est bonne pour les citoyens.",
                "La Comisión ha presentado una propuesta y creemos que es buena para los ciudadanos.",
                "Komisja przedstawiła wniosek i uważamy, że jest on dobry dla obywateli oraz przedsiębiorstw.",
                "Η Επιτροπή υπέβαλε μια πρόταση και πιστεύουμε ότι είναι καλή για τους πολίτες.",
                "Комисията представи предложение и ние смятаме, че то е добро за гражданите.",
                "Komisjon esitas ettepaneku ja me arvame, et see on hea ning kasulik.");

        int[] labels = LanguageGuesser.guess(texts);

        assertThat(Arrays.stream(labels).mapToObj(LanguageGuesser.LANGUAGES::get))
                .containsExactly("en", "de", "fr", "es", "pl", "el", "bg", "et");
    }

    @Test
    void aTextWithoutLettersIsUndetermined() {
        int[] labels = LanguageGuesser.guess(List.of("(1)", "", "The report of the committee is adopted."));

        assertThat(labels[0]).isEqualTo(LanguageGuesser.UNDETERMINED);
        assertThat(labels[1]).isEqualTo(LanguageGuesser.UNDETERMINED);
        assertThat(LanguageGuesser.LANGUAGES.get(labels[2])).isEqualTo("en");
    }

    @Test
    void hashesWordsCaseInsensitivelyAndSplitsAtNonLetters() {
        long[] hashes = LanguageGuesser.wordHashes("The the THE, über-Über 42x");

        assertThat(hashes).hasSize(6);
        assertThat(hashes[0]).isEqualTo(hashes[1]).isEqualTo(hashes[2]);
        assertThat(hashes[3]).isEqualTo(hashes[4]).isNotEqualTo(hashes[0]);
        assertThat(hashes[5]).isEqualTo(LanguageGuesser.wordHashes("x")[0]);
    }
}
