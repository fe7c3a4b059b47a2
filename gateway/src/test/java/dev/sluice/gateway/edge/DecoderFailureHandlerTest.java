package dev.sluice.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DecoderFailureHandlerTest {
    @Test
    void aPlainTargetNeedsNoParsing() {
        assertThat(DecoderFailureHandler.isPlainTarget("/v1/chat/completions")).isTrue();
        assertThat(DecoderFailureHandler.isPlainTarget("/v1/models/ft:gpt-4o:org::id?limit=2&after=x"))
                .isTrue();
        assertThat(DecoderFailureHandler.invalidTarget("/v1/chat/completions")).isNull();
        // Left to the parser, which still decides them as before.
        assertThat(DecoderFailureHandler.isPlainTarget("/v1/a%20b")).isFalse();
        assertThat(DecoderFailureHandler.invalidTarget("/v1/a%20b")).isNull();
        assertThat(DecoderFailureHandler.invalidTarget("/v1/a%zz")).isNotNull();
        assertThat(DecoderFailureHandler.invalidTarget("/v1/a\\b")).isNotNull();
        assertThat(DecoderFailureHandler.invalidTarget("/v1/a b")).isNotNull();
    }

    /** The shortcut only ever says "a URI" of what java.net.URI parses, so the answers are unchanged. */
    @Test
    void whatTheShortcutCallsPlainIsAlwaysAUri() {
        String alphabet = "/aZ09-._~?=&+,;:@!$'()*%[]#\\ \"<>^`{|}\u00e9";
        Random random = new Random(16);
        int plain = 0;
        for (int i = 0; i < 200_000; i++) {
            StringBuilder s = new StringBuilder(random.nextInt(4) == 0 ? "" : "/");
            int length = random.nextInt(8);
            for (int k = 0; k < length; k++)
                s.append(alphabet.charAt(random.nextInt(random.nextBoolean() ? 24 : alphabet.length())));
            String target = s.toString();
            if (!DecoderFailureHandler.isPlainTarget(target)) continue;
            plain++;
            try {
                new URI(target);
            } catch (URISyntaxException e) {
                throw new AssertionError("called plain but not a URI: " + target, e);
            }
        }
        assertThat(plain).isGreaterThan(10_000);
    }
}
