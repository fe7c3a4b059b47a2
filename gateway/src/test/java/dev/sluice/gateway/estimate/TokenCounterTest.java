package dev.sluice.gateway.estimate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TokenCounterTest {
    private static final Encoding O200K = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);
    private static final String[] WORDS = {
        "rate",
        "limits",
        "per",
        "tenant,",
        "tokens",
        "and",
        "requests;",
        "2048",
        "数据",
        "données",
        "🎉",
        "\n",
        "the",
        "gateway",
        "reconciles",
        "usage."
    };

    private static String prose(int chars, long seed) {
        Random random = new Random(seed);
        StringBuilder b = new StringBuilder(chars + 16);
        while (b.length() < chars) b.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
        return b.toString();
    }

    @Test
    void textsWithinTheBudgetAreCountedExactly() {
        TokenCounter counter = new TokenCounter(O200K);
        String a = prose(TokenCounter.EXACT_CHARS / 2, 1);
        String b = prose(TokenCounter.EXACT_CHARS / 2 - 20, 2);

        assertThat(counter.count(a)).isEqualTo(O200K.countTokensOrdinary(a));
        assertThat(counter.count(b)).isEqualTo(O200K.countTokensOrdinary(b));
        assertThat(counter.count("")).isZero();
    }

    @Test
    void aLongTextIsSampledWithinAFewPercent() {
        for (long seed = 0; seed < 5; seed++) {
            String text = prose(100_000 + (int) seed * 7919, seed);
            long exact = O200K.countTokensOrdinary(text);

            assertThat((double) new TokenCounter(O200K).count(text)).isCloseTo(exact, within(exact * 0.02));
        }
    }

    @Test
    void textsPastTheBudgetAreExtrapolatedFromTheRequestsOwnRatio() {
        TokenCounter counter = new TokenCounter(O200K);
        long estimated = 0;
        long exact = 0;
        for (int i = 0; i < 200; i++) {
            String message = prose(800, 100 + i);
            estimated += counter.count(message);
            exact += O200K.countTokensOrdinary(message);
        }

        assertThat((double) estimated).isCloseTo(exact, within(exact * 0.03));
    }

    @Test
    void samplingNeverSplitsASurrogatePair() {
        String emoji = "🎉".repeat(40_000); // every other char is a low surrogate
        long exact = O200K.countTokensOrdinary(emoji);

        assertThat((double) new TokenCounter(O200K).count(emoji)).isCloseTo(exact, within(exact * 0.02));
    }
}
