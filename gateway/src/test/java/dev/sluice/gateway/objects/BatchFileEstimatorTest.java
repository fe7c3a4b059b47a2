package dev.sluice.gateway.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.estimate.InvalidRequestException;
import dev.sluice.gateway.estimate.RequestRewriter;
import dev.sluice.gateway.estimate.TokenEstimator;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BatchFileEstimatorTest {
    static final TokenEstimator ESTIMATOR = new TokenEstimator();
    final BatchFileEstimator files = new BatchFileEstimator(ESTIMATOR, new RequestRewriter());

    static String line(int i, String url, String body) {
        return "{\"custom_id\":\"r" + i + "\",\"method\":\"POST\",\"url\":\"" + url + "\",\"body\":" + body + "}";
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void eachLineIsEstimatedAsTheSameCallAloneWouldBeAndTheTotalsAdd() {
        String capped =
                "{\"model\":\"gpt-4o-mini\",\"max_tokens\":90,\"messages\":[{\"role\":\"user\",\"content\":\"Say hi\"}]}";
        String uncapped =
                "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Summarise the news\"}]}";
        String file =
                line(1, "/v1/chat/completions", capped) + "\n" + line(2, "/v1/chat/completions", uncapped) + "\n\n";

        BatchFileEstimator.Estimated e = files.estimate(utf8(file), 256);

        var a = ESTIMATOR.estimate("/v1/chat/completions", utf8(capped), 256);
        var b = ESTIMATOR.estimate("/v1/chat/completions", utf8(uncapped), 256);
        assertThat(e.estimate())
                .isEqualTo(new BatchFileEstimate("gpt-4o-mini", a.promptTokens() + b.promptTokens(), 90 + 256, 2));
        String sent = new String(e.file(), StandardCharsets.UTF_8);
        assertThat(sent.lines().toList()).hasSize(2);
        assertThat(sent.lines().toList().get(0)).contains("\"max_tokens\":90").doesNotContain("max_completion_tokens");
        assertThat(sent.lines().toList().get(1))
                .contains("\"max_completion_tokens\":256")
                .contains("\"custom_id\":\"r2\"");
    }

    @Test
    void eachEndpointGetsItsOwnOutputField() {
        String file = line(1, "/v1/responses", "{\"model\":\"gpt-4o\",\"input\":\"hi\"}") + "\n"
                + line(2, "/v1/responses", "{\"model\":\"gpt-4o\",\"input\":\"there\",\"max_output_tokens\":null}");
        String sent = new String(files.estimate(utf8(file), 100).file(), StandardCharsets.UTF_8);
        assertThat(sent.lines()).allMatch(l -> l.contains("\"max_output_tokens\":100"));
        String embeddings = line(1, "/v1/embeddings", "{\"model\":\"text-embedding-3-small\",\"input\":\"hi\"}");
        BatchFileEstimator.Estimated e = files.estimate(utf8(embeddings), 100);
        assertThat(e.estimate().outputTokens()).isZero();
        assertThat(new String(e.file(), StandardCharsets.UTF_8)).doesNotContain("max_");
    }

    @Test
    void aBadLineIsRefusedByItsNumber() {
        String good = line(
                1,
                "/v1/chat/completions",
                "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
        assertThatThrownBy(() -> files.estimate(utf8(good + "\nnot json\n"), 10))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageStartingWith("Line 2 of the batch file: not valid JSON");
        assertThatThrownBy(() -> files.estimate(utf8(good + "\n" + line(2, "/v1/images/edits", "{}")), 10))
                .hasMessageContaining("Line 2")
                .hasMessageContaining("/v1/images/edits");
        assertThatThrownBy(() -> files.estimate(
                        utf8(
                                good + "\n"
                                        + line(
                                                2,
                                                "/v1/chat/completions",
                                                "{\"model\":\"gpt-4o\",\"max_tokens\":-1,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}")),
                        10))
                .hasMessageContaining("Line 2")
                .hasMessageContaining("max_tokens");
        assertThatThrownBy(() -> files.estimate(
                        utf8(
                                good + "\n"
                                        + line(
                                                2,
                                                "/v1/chat/completions",
                                                "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}")),
                        10))
                .hasMessageContaining("Line 2")
                .hasMessageContaining("one model");
        assertThatThrownBy(() -> files.estimate(utf8("\n\n"), 10)).hasMessageContaining("no requests");
    }
}
