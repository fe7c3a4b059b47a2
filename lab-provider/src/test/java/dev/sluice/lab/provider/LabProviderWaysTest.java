package dev.sluice.lab.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The lab provider's ways over real HTTP, one mode each: how it counts a prompt, its split input and
 * output limits, its clock offset and the network time of its answers.
 */
class LabProviderWaysTest {

    private static final LabLimits FAST =
            LabLimits.DEFAULTS.withLatency(Duration.ofMillis(50)).withLatencyJitter(0);
    private static final String CHAT = "/v1/chat/completions";
    private static final String MODEL = "gpt-4o-mini";
    private static final String PAGE =
            "The quick brown fox jumps over the lazy dog, and then it reads a page of a book.";

    private LabProviderServer server;
    private LabHttp http;

    private LabHttp start(LabLimits limits, ProviderWays ways, Clock clock) {
        server = new LabProviderServer(new ProviderSimulator(limits), 0, clock, 1, ways);
        server.start();
        http = LabHttp.forServer(server);
        return http;
    }

    private LabHttp start(ProviderWays ways) {
        return start(FAST, ways, Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        if (http != null) http.close();
        if (server != null) server.stop();
    }

    private static String chat(String extra, String... contents) {
        StringBuilder messages = new StringBuilder();
        for (String c : contents) {
            messages.append(messages.isEmpty() ? "" : ",")
                    .append("{\"role\":\"user\",\"content\":\"")
                    .append(c)
                    .append("\"}");
        }
        return "{\"model\":\"" + MODEL + "\",\"messages\":[" + messages + "]" + (extra.isEmpty() ? "" : "," + extra)
                + "}";
    }

    private static long promptTokens(LabHttp.Reply reply) {
        assertThat(reply.status()).isEqualTo(200);
        return JsonMapper.shared()
                .readTree(reply.body())
                .path("usage")
                .path("prompt_tokens")
                .asLong();
    }

    private static long bpe(String text) {
        return PromptTokenCounter.shared().count(MODEL, text);
    }

    private static PromptCount count(PromptCount.Method method, double charsPerToken, double factor, int perMessage) {
        return new PromptCount(method, charsPerToken, factor, perMessage);
    }

    @Test
    void byDefaultTheProviderCountsWithTheEstimatorsBpe() {
        start(ProviderWays.DEFAULT);
        // 3 to prime the reply, 4 of framing per message.
        assertThat(promptTokens(http.post(CHAT, chat("", PAGE)))).isEqualTo(3 + 4 + bpe(PAGE));
    }

    @Test
    void charactersPerTokenCountsCharactersAndLimitsWithThatCount() {
        start(ProviderWays.DEFAULT.withPromptCount(count(PromptCount.Method.CHARS, 4.0, 1.0, 4)));
        String text = "a".repeat(401);
        LabHttp.Reply reply = http.post(CHAT, chat("\"max_tokens\":10", text));
        // 401 / 4 = 100.25, rounded up once for the whole prompt.
        assertThat(promptTokens(reply)).isEqualTo(3 + 4 + 101);
        assertThat(reply.header("x-ratelimit-remaining-tokens")).isEqualTo(Long.toString(300_000 - 108 - 10));
    }

    @Test
    void aFactorScalesTheBpeCountUpOrDown() {
        start(ProviderWays.DEFAULT.withPromptCount(count(PromptCount.Method.BPE, 4.0, 1.15, 4)));
        assertThat(promptTokens(http.post(CHAT, chat("", PAGE, PAGE))))
                .isEqualTo((long) Math.ceil(3 + 4 + 1.15 * bpe(PAGE) + 4 + 1.15 * bpe(PAGE)));
        stop();
        start(ProviderWays.DEFAULT.withPromptCount(count(PromptCount.Method.BPE, 4.0, 0.85, 4)));
        assertThat(promptTokens(http.post(CHAT, chat("", PAGE)))).isEqualTo((long) Math.ceil(3 + 4 + 0.85 * bpe(PAGE)));
    }

    @Test
    void theFramingPerMessageIsTheProvidersOwn() {
        start(ProviderWays.DEFAULT.withPromptCount(count(PromptCount.Method.BPE, 4.0, 1.0, 10)));
        assertThat(promptTokens(http.post(CHAT, chat("", PAGE, "Hi")))).isEqualTo(3 + 10 + bpe(PAGE) + 10 + bpe("Hi"));
    }

    @Test
    void anInputLimitRefusesWith429NamingItInTheBodyAndTheHeaders() {
        long prompt = 3 + 4 + bpe(PAGE);
        start(
                FAST.withInputTokensPerMinute(2 * prompt + 1).withTokensPerMinute(0),
                ProviderWays.DEFAULT,
                Clock.systemUTC());
        LabHttp.Reply first = http.post(CHAT, chat("", PAGE));
        assertThat(first.header("x-ratelimit-limit-input-tokens")).isEqualTo(Long.toString(2 * prompt + 1));
        assertThat(first.header("x-ratelimit-remaining-input-tokens")).isEqualTo(Long.toString(prompt + 1));
        assertThat(first.header("x-ratelimit-limit-tokens")).isNull();
        assertThat(http.post(CHAT, chat("", PAGE)).status()).isEqualTo(200);

        LabHttp.Reply refused = http.post(CHAT, chat("", PAGE));
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.header("retry-after")).isNotNull();
        assertThat(refused.header("x-ratelimit-remaining-input-tokens")).isEqualTo("1");
        JsonNode error = JsonMapper.shared().readTree(refused.body()).path("error");
        assertThat(error.path("type").asString()).isEqualTo("input_tokens");
        assertThat(error.path("code").asString()).isEqualTo("rate_limit_exceeded");
        assertThat(error.path("message").asString())
                .contains("on input tokens per min (ITPM): Limit " + (2 * prompt + 1));
    }

    @Test
    void anOutputLimitReservesMaxTokensAndSettlesFromWhatWasWritten() {
        // The model writes 200; max_tokens 250 reserves 250 and is settled to 200 when the answer is done.
        start(FAST.withOutputTokensPerMinute(450), ProviderWays.DEFAULT, Clock.systemUTC());
        assertThat(http.post(CHAT, chat("\"max_tokens\":250", PAGE)).status()).isEqualTo(200);
        LabHttp.Reply second = http.post(CHAT, chat("\"max_tokens\":250", PAGE)); // 200 + 250 fit; 250 + 250 would not
        assertThat(second.status()).isEqualTo(200);

        LabHttp.Reply refused = http.post(CHAT, chat("\"max_tokens\":250", PAGE));
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.header("x-ratelimit-limit-output-tokens")).isEqualTo("450");
        assertThat(refused.header("x-ratelimit-remaining-output-tokens")).isEqualTo("50");
        JsonNode error = JsonMapper.shared().readTree(refused.body()).path("error");
        assertThat(error.path("type").asString()).isEqualTo("output_tokens");
        assertThat(error.path("message").asString())
                .contains("on output tokens per min (OTPM): Limit 450, Used 400, Requested 250");
    }

    @Test
    void theSplitLimitsCanBeSetAtRunTimeLikeTheOthers() {
        start(ProviderWays.DEFAULT);
        LabHttp.Reply put = http.put("/_lab/limits", "{\"inputTokensPerMinute\":100,\"outputTokensPerMinute\":50}");
        assertThat(put.status()).isEqualTo(200);
        assertThat(server.simulator().limits().inputTokensPerMinute()).isEqualTo(100);
        JsonNode limits = JsonMapper.shared().readTree(http.get("/_lab/limits").body());
        assertThat(limits.path("outputTokensPerMinute").asLong()).isEqualTo(50);
        assertThat(http.put("/_lab/limits", "{\"outputTokensPerMinute\":-1}").status())
                .isEqualTo(400);
    }

    @Test
    void theProvidersWindowClockRunsTheOffsetFromTheGateways() {
        Clock gateway = Clock.fixed(Instant.ofEpochMilli(1_000_500), ZoneOffset.UTC);
        List<Long> countedAt = new CopyOnWriteArrayList<>();
        start(FAST, ProviderWays.DEFAULT.withClockOffset(Duration.ofMillis(800)), gateway);
        server.simulator().listener((now, admission, tokens) -> countedAt.add(now));

        LabHttp.Reply reply = http.post(CHAT, chat("", PAGE));
        assertThat(countedAt).containsExactly(1_001_300L);
        // Its own timestamps are on its clock too: 1,001.3 s, not the gateway's 1,000.5 s.
        assertThat(JsonMapper.shared().readTree(reply.body()).path("created").asLong())
                .isEqualTo(1_001);
        stop();

        start(FAST, ProviderWays.DEFAULT.withClockOffset(Duration.ofSeconds(-1)), gateway);
        countedAt.clear();
        server.simulator().listener((now, admission, tokens) -> countedAt.add(now));
        http.post(CHAT, chat("", PAGE));
        assertThat(countedAt).containsExactly(999_500L);
    }

    @Test
    void anAnswerArrivesTheExtraLatencyAfterTheProviderCountedAndFinishedTheCall() {
        start(ProviderWays.DEFAULT.withExtraLatency(Duration.ofSeconds(2)));
        long sent = System.nanoTime();
        CompletableFuture<LabHttp.Reply> reply =
                http.send("POST", CHAT, chat("", PAGE), true).toFuture();

        // Counted, generated (50 ms) and billed, its in-flight slot free, while the answer is still on its way.
        await().atMost(Duration.ofSeconds(1)).until(() -> server.stats().completed() == 1);
        assertThat(server.stats().currentInFlight()).isZero();
        assertThat(reply).isNotDone();

        assertThat(reply.join().status()).isEqualTo(200);
        assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(Duration.ofMillis(2_050));
    }

    @Test
    void aRefusalTravelsTheSameNetwork() {
        start(
                FAST.withRequestsPerMinute(1),
                ProviderWays.DEFAULT.withExtraLatency(Duration.ofMillis(300)),
                Clock.systemUTC());
        http.post(CHAT, chat("", PAGE));
        long sent = System.nanoTime();
        assertThat(http.post(CHAT, chat("", PAGE)).status()).isEqualTo(429);
        assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    }
}
