package dev.sluice.lab.independent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The independent provider the judged run measures against (docs/judged-run.md) answers as
 * OpenAI documents: a completion with its usage, counted its own way (characters / 4 here), a
 * stream whose last chunk carries the usage when asked, and a 429 with OpenAI's body and
 * headers once its tokens per minute would be exceeded. Skipped where there is no Node.
 */
class IndependentProviderTest {
    static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static IndependentProvider provider;

    @BeforeAll
    static void start() {
        assumeTrue(IndependentProvider.nodeAvailable(), "node 18+ is not on the PATH");
        // 2 000 tokens a minute: four calls of 100 prompt + 400 reserved output fit, a fifth does not.
        provider =
                IndependentProvider.start("--tpm=2000", "--rpm=100", "--in-flight=1", "--latency-ms=150", "--jitter=0");
    }

    @AfterAll
    static void stop() {
        if (provider != null) provider.close();
    }

    @BeforeEach
    void reset() {
        provider.reset();
    }

    /** 400 characters of prompt: 100 tokens at 4 characters a token. */
    static String body(String extra) {
        return "{\"model\":\"gpt-4o-mini\",\"max_tokens\":400," + extra
                + "\"messages\":[{\"role\":\"user\",\"content\":\"" + "abcd".repeat(100) + "\"}]}";
    }

    static HttpResponse<String> post(String body) throws IOException, InterruptedException {
        return HTTP.send(request(body), HttpResponse.BodyHandlers.ofString());
    }

    static HttpRequest request(String body) {
        return HttpRequest.newBuilder(URI.create(provider.baseUrl() + "/chat/completions"))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    @Test
    void answersACompletionWithTheTokensItCounted() throws Exception {
        HttpResponse<String> r = post(body(""));

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode json = JsonMapper.shared().readTree(r.body());
        assertThat(json.path("object").asString()).isEqualTo("chat.completion");
        assertThat(json.path("choices").get(0).path("message").path("role").asString())
                .isEqualTo("assistant");
        assertThat(json.path("usage").path("prompt_tokens").asLong()).isEqualTo(100);
        assertThat(json.path("usage").path("completion_tokens").asLong()).isEqualTo(400);
        assertThat(json.path("usage").path("total_tokens").asLong()).isEqualTo(500);
        assertThat(r.headers().firstValue("x-ratelimit-limit-tokens")).hasValue("2000");
        assertThat(r.headers().firstValue("x-ratelimit-remaining-tokens")).hasValue("1500");
        assertThat(r.headers().firstValue("x-ratelimit-reset-tokens").orElseThrow())
                .matches("(\\d+m)?\\d+(\\.\\d+)?s|\\d+ms");
        JsonNode stats = provider.stats();
        assertThat(stats.path("answered").asLong()).isEqualTo(1);
        assertThat(stats.path("totalTokens").asLong()).isEqualTo(500);
    }

    @Test
    void aStreamEndsWithItsUsageWhenAskedFor() throws Exception {
        HttpResponse<String> r = post(body("\"stream\":true,\"stream_options\":{\"include_usage\":true},"));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type").orElseThrow()).startsWith("text/event-stream");
        List<String> data = r.body()
                .lines()
                .filter(l -> l.startsWith("data: "))
                .map(l -> l.substring(6))
                .toList();
        assertThat(data.get(data.size() - 1)).isEqualTo("[DONE]");
        JsonNode last = JsonMapper.shared().readTree(data.get(data.size() - 2));
        assertThat(last.path("choices").size()).isZero();
        assertThat(last.path("usage").path("total_tokens").asLong()).isEqualTo(500);
    }

    @Test
    void refusesWithOpenAisRateLimitAnswerOnceTheMinutesTokensWouldBeExceeded() throws Exception {
        for (int i = 0; i < 4; i++) assertThat(post(body("")).statusCode()).isEqualTo(200); // 4 × 500 = the minute

        HttpResponse<String> r = post(body(""));

        assertThat(r.statusCode()).isEqualTo(429);
        JsonNode error = JsonMapper.shared().readTree(r.body()).path("error");
        assertThat(error.path("code").asString()).isEqualTo("rate_limit_exceeded");
        assertThat(error.path("type").asString()).isEqualTo("tokens");
        assertThat(error.path("message").asString())
                .contains("tokens per min (TPM)")
                .contains("Limit 2000");
        assertThat(error.has("param")).isTrue();
        // The first of the four leaves the window about 59 s from now: that is when this one fits.
        assertThat(Long.parseLong(r.headers().firstValue("retry-after").orElseThrow()))
                .isBetween(55L, 60L);
        assertThat(r.headers().firstValue("x-ratelimit-remaining-tokens")).hasValue("0");
        assertThat(r.headers().firstValue("x-ratelimit-reset-tokens").orElseThrow())
                .matches("\\d+(\\.\\d+)?s");
        JsonNode stats = provider.stats();
        assertThat(stats.path("rejected429").asLong()).isEqualTo(1);
        assertThat(stats.path("rejected429Tokens").asLong()).isEqualTo(1);
        assertThat(stats.path("busiest60sTokens").asLong()).isEqualTo(2000);
    }

    @Test
    void answers503OverloadedPastItsCallsInFlight() {
        // Three at once against one call in flight (each takes 150 ms): the first counted runs, the others find it
        // busy.
        List<HttpResponse<String>> answers = List.of(send(), send(), send()).stream()
                .map(CompletableFuture::join)
                .toList();

        List<Integer> statuses = answers.stream().map(HttpResponse::statusCode).toList();
        assertThat(statuses).contains(200, 503).containsOnly(200, 503);
        HttpResponse<String> busy =
                answers.stream().filter(r -> r.statusCode() == 503).findFirst().orElseThrow();
        assertThat(JsonMapper.shared()
                        .readTree(busy.body())
                        .path("error")
                        .path("type")
                        .asString())
                .isEqualTo("server_error");
        assertThat(busy.headers().firstValue("retry-after")).hasValue("1");
        assertThat(provider.stats().path("rejected503").asLong())
                .isEqualTo(statuses.stream().filter(s -> s == 503).count());
    }

    static CompletableFuture<HttpResponse<String>> send() {
        return HTTP.sendAsync(request(body("")), HttpResponse.BodyHandlers.ofString());
    }
}
