package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RateLimitHeadersTest {
    @Test
    void durationsAreWrittenAsOpenAiWritesThem() {
        assertThat(RateLimitHeaders.openAiDuration(0)).isEqualTo("0ms");
        assertThat(RateLimitHeaders.openAiDuration(850)).isEqualTo("850ms");
        assertThat(RateLimitHeaders.openAiDuration(1_000)).isEqualTo("1s");
        assertThat(RateLimitHeaders.openAiDuration(1_500)).isEqualTo("1.5s");
        assertThat(RateLimitHeaders.openAiDuration(1_050)).isEqualTo("1.05s");
        assertThat(RateLimitHeaders.openAiDuration(1_005)).isEqualTo("1.005s");
        assertThat(RateLimitHeaders.openAiDuration(12_340)).isEqualTo("12.34s");
        assertThat(RateLimitHeaders.openAiDuration(360_000)).isEqualTo("6m0s");
        assertThat(RateLimitHeaders.openAiDuration(61_007)).isEqualTo("1m1.007s");
        assertThat(RateLimitHeaders.openAiDuration(3_723_000)).isEqualTo("1h2m3s");
        assertThat(RateLimitHeaders.openAiDuration(3_600_100)).isEqualTo("1h0m0.1s");
    }
}
