package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

class RateLimitHeadersTest {
    @Test
    void resetsAreWrittenAsOpenAiWritesThemEvenWhenTheWindowIsEmpty() {
        HttpHeaders empty = new HttpHeaders();
        RateLimitHeaders.apply(empty, List.of(new WindowUsage("minute", 60, 1000, 10, 0, 0, 0)));
        // OpenAI (Go) writes an empty window's reset as 0s; "0ms" is a shape its clients never see.
        assertThat(empty.getFirst("x-ratelimit-reset-tokens")).isEqualTo("0s");
        assertThat(empty.getFirst("x-ratelimit-reset-requests")).isEqualTo("0s");

        HttpHeaders used = new HttpHeaders();
        RateLimitHeaders.apply(
                used,
                List.of(
                        new WindowUsage("minute", 60, 1000, 10, 400, 2, 61_007),
                        new WindowUsage("hour", 3600, 60_000, 600, 400, 2, 3_600_100)));
        assertThat(used.getFirst("x-ratelimit-reset-tokens")).isEqualTo("1m1.007s");
        assertThat(used.getFirst("x-ratelimit-remaining-tokens")).isEqualTo("600");
        assertThat(used.getFirst("RateLimit"))
                .isEqualTo("\"minute-tokens\";r=600;t=62, \"minute-requests\";r=8;t=62, "
                        + "\"hour-tokens\";r=59600;t=3601, \"hour-requests\";r=598;t=3601");
    }
}
