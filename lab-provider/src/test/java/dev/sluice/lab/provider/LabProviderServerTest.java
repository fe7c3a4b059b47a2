package dev.sluice.lab.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The lab provider over real HTTP on an ephemeral port, with 50 ms calls and no jitter. */
class LabProviderServerTest {

    private static final LabLimits FAST =
            LabLimits.DEFAULTS.withLatency(Duration.ofMillis(50)).withLatencyJitter(0);
    private static final String CHAT = "/v1/chat/completions";

    private ProviderSimulator simulator;
    private LabProviderServer server;
    private LabHttp http;

    @BeforeEach
    void start() {
        simulator = new ProviderSimulator(FAST);
        server = new LabProviderServer(simulator, 0, Clock.systemUTC());
        server.start();
        http = LabHttp.forServer(server);
    }

    @AfterEach
    void stop() {
        http.close();
        server.stop();
    }

    private static JsonNode json(String s) {
        return JsonMapper.shared().readTree(s);
    }

    private static String chat(String content, String extra) {
        return "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"" + content + "\"}]"
                + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    /** The data payloads of an SSE body, in order. */
    private static List<String> dataLines(String sse) {
        List<String> out = new ArrayList<>();
        for (String line : sse.split("\n")) {
            if (line.startsWith("data: ")) {
                out.add(line.substring(6));
            }
        }
        return out;
    }

    @Test
    void baseUrlPointsAtTheBoundPort() {
        assertThat(server.port()).isPositive();
        assertThat(server.baseUrl()).isEqualTo("http://127.0.0.1:" + server.port() + "/v1");
    }

    @Test
    void chatCompletionAnswersWithUsageAndRateLimitHeaders() {
        LabHttp.Reply reply = http.post(CHAT, chat("Extract the text of page one.", ""));

        assertThat(reply.status()).isEqualTo(200);
        JsonNode body = json(reply.body());
        assertThat(body.path("object").asString()).isEqualTo("chat.completion");
        assertThat(body.path("model").asString()).isEqualTo("gpt-4o-mini");
        JsonNode choice = body.path("choices").get(0);
        assertThat(choice.path("message").path("role").asString()).isEqualTo("assistant");
        assertThat(choice.path("message").path("content").asString().split(" ")).hasSize(200);
        assertThat(choice.path("finish_reason").asString()).isEqualTo("stop");

        var counter = new PromptTokenCounter();
        long prompt = 3 + 4 + counter.count("gpt-4o-mini", "Extract the text of page one.");
        JsonNode usage = body.path("usage");
        assertThat(usage.path("prompt_tokens").asLong()).isEqualTo(prompt);
        assertThat(usage.path("completion_tokens").asLong()).isEqualTo(200);
        assertThat(usage.path("total_tokens").asLong()).isEqualTo(prompt + 200);

        assertThat(reply.header("x-ratelimit-limit-requests")).isEqualTo("1500");
        assertThat(reply.header("x-ratelimit-limit-tokens")).isEqualTo("300000");
        assertThat(reply.header("x-ratelimit-remaining-requests")).isEqualTo("1499");
        assertThat(reply.header("x-ratelimit-remaining-tokens")).isEqualTo(Long.toString(300_000 - prompt - 200));
        // Taken at admission: this call itself leaves the window one full minute later.
        assertThat(reply.header("x-ratelimit-reset-requests")).isEqualTo("1m0s");
        assertThat(reply.header("x-ratelimit-reset-tokens")).isEqualTo("1m0s");

        LabStats stats = server.stats();
        assertThat(stats.completed()).isEqualTo(1);
        assertThat(stats.tokensBilled()).isEqualTo(prompt + 200);
        assertThat(stats.currentInFlight()).isZero();
    }

    @Test
    void maxTokensCutsTheAnswerShortWithFinishReasonLength() {
        JsonNode body = json(http.post(CHAT, chat("hi", "\"max_tokens\":5")).body());
        assertThat(body.path("choices").get(0).path("finish_reason").asString()).isEqualTo("length");
        assertThat(body.path("usage").path("completion_tokens").asLong()).isEqualTo(5);
        assertThat(body.path("choices").get(0).path("message").path("content").asString())
                .isEqualTo(OpenAiShapes.words(0, 5));
        // max_completion_tokens wins over the legacy field, as in OpenAI.
        body = json(http.post(CHAT, chat("hi", "\"max_tokens\":5,\"max_completion_tokens\":7"))
                .body());
        assertThat(body.path("usage").path("completion_tokens").asLong()).isEqualTo(7);
    }

    @Test
    void streamWithoutIncludeUsageHasNoUsageChunkAndEndsWithDone() {
        LabHttp.Reply reply = http.post(CHAT, chat("hi", "\"stream\":true,\"max_tokens\":20"));

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.header("content-type")).startsWith("text/event-stream");
        List<String> data = dataLines(reply.body());
        assertThat(data.get(data.size() - 1)).isEqualTo("[DONE]");
        StringBuilder text = new StringBuilder();
        for (String d : data.subList(0, data.size() - 1)) {
            JsonNode chunk = json(d);
            assertThat(chunk.path("object").asString()).isEqualTo("chat.completion.chunk");
            assertThat(chunk.has("usage")).isFalse();
            assertThat(chunk.path("choices")).hasSize(1);
            text.append(
                    chunk.path("choices").get(0).path("delta").path("content").asString(""));
        }
        assertThat(json(data.get(0))
                        .path("choices")
                        .get(0)
                        .path("delta")
                        .path("role")
                        .asString())
                .isEqualTo("assistant");
        assertThat(json(data.get(data.size() - 2))
                        .path("choices")
                        .get(0)
                        .path("finish_reason")
                        .asString())
                .isEqualTo("length");
        assertThat(text.toString()).isEqualTo(OpenAiShapes.words(0, 20));
        assertThat(server.stats().tokensBilled()).isEqualTo(3 + 4 + 1 + 20); // "hi" is one token
    }

    @Test
    void streamWithIncludeUsageEndsWithAUsageChunkWithoutChoicesThenDone() {
        String body = chat("hi", "\"stream\":true,\"max_tokens\":20,\"stream_options\":{\"include_usage\":true}");
        List<String> data = dataLines(http.post(CHAT, body).body());

        assertThat(data.get(data.size() - 1)).isEqualTo("[DONE]");
        JsonNode usageChunk = json(data.get(data.size() - 2));
        assertThat(usageChunk.path("choices").isArray()).isTrue();
        assertThat(usageChunk.path("choices")).isEmpty();
        assertThat(usageChunk.path("usage").path("prompt_tokens").asLong()).isEqualTo(8);
        assertThat(usageChunk.path("usage").path("completion_tokens").asLong()).isEqualTo(20);
        assertThat(usageChunk.path("usage").path("total_tokens").asLong()).isEqualTo(28);
        // Every other chunk says "usage": null, as OpenAI does.
        for (String d : data.subList(0, data.size() - 2)) {
            assertThat(json(d).get("usage").isNull()).isTrue();
        }
    }

    @Test
    void theFirstChunkArrivesLongBeforeTheCallFinishes() {
        simulator.setLimits(FAST.withLatency(Duration.ofMillis(600)));
        long start = System.nanoTime();
        List<Long> arrivals = new CopyOnWriteArrayList<>();

        http.client
                .headers(h -> h.set("content-type", "application/json"))
                .post()
                .uri(CHAT)
                .send(ByteBufFlux.fromString(Mono.just(chat("hi", "\"stream\":true"))))
                .responseContent()
                .asString()
                .doOnNext(piece -> arrivals.add((System.nanoTime() - start) / 1_000_000))
                .blockLast(Duration.ofSeconds(5));
        long firstMs = arrivals.get(0);
        long lastMs = arrivals.get(arrivals.size() - 1);

        assertThat(firstMs).as("first chunk at ~10%% of 600 ms").isLessThan(300);
        assertThat(lastMs).as("the call takes its latency").isGreaterThanOrEqualTo(550);
        assertThat(arrivals.size())
                .as("chunks arrive spread out, not in one write")
                .isGreaterThan(10);
    }

    @Test
    void aClientLeavingMidStreamReleasesTheCallAndIsBilledForWhatWasSent() {
        simulator.setLimits(FAST.withLatency(Duration.ofMillis(1_000)));
        http.client
                .headers(h -> h.set("content-type", "application/json"))
                .post()
                .uri(CHAT)
                .send(ByteBufFlux.fromString(Mono.just(chat("hi", "\"stream\":true,\"max_tokens\":50"))))
                .responseContent()
                .asString()
                .take(3) // then cancel: the connection is closed under the server
                .blockLast(Duration.ofSeconds(5));

        await().atMost(Duration.ofSeconds(2)).until(() -> server.stats().cancelled() == 1);
        LabStats stats = server.stats();
        assertThat(stats.currentInFlight()).isZero();
        assertThat(stats.completed()).isZero();
        long prompt = 8;
        assertThat(stats.tokensBilled()).isBetween(prompt + 1, prompt + 49);
    }

    @Test
    void tokensPerMinuteExhaustedAnswers429WithRetryAfterAndOpenAiBody() {
        simulator.setLimits(FAST.withTokensPerMinute(1_000));
        assertThat(http.post(CHAT, chat("hi", "\"max_tokens\":900")).status()).isEqualTo(200);

        LabHttp.Reply reply = http.post(CHAT, chat("hi", "\"max_tokens\":900"));

        assertThat(reply.status()).isEqualTo(429);
        JsonNode error = json(reply.body()).path("error");
        assertThat(error.path("code").asString()).isEqualTo("rate_limit_exceeded");
        assertThat(error.path("type").asString()).isEqualTo("tokens");
        assertThat(error.get("param").isNull()).isTrue();
        assertThat(error.path("message").asString())
                .contains("tokens per min (TPM)", "Limit 1000", "Used 908", "Requested 908", "Please try again in");
        long retryMs = Long.parseLong(reply.header("retry-after-ms"));
        assertThat(retryMs).isBetween(59_000L, 60_000L);
        assertThat(reply.header("retry-after")).isEqualTo(Long.toString((retryMs + 999) / 1000));
        assertThat(reply.header("x-ratelimit-remaining-tokens")).isEqualTo("92");
        assertThat(reply.header("x-ratelimit-limit-tokens")).isEqualTo("1000");
        assertThat(server.stats().rejected429Tokens()).isEqualTo(1);
    }

    @Test
    void requestsPerMinuteExhaustedAnswers429OnRequests() {
        simulator.setLimits(FAST.withRequestsPerMinute(1));
        http.post(CHAT, chat("hi", ""));
        LabHttp.Reply reply = http.post(CHAT, chat("hi", ""));
        assertThat(reply.status()).isEqualTo(429);
        JsonNode error = json(reply.body()).path("error");
        assertThat(error.path("type").asString()).isEqualTo("requests");
        assertThat(error.path("message").asString()).contains("requests per min (RPM)", "Limit 1");
        assertThat(reply.header("x-ratelimit-remaining-requests")).isEqualTo("0");
        assertThat(reply.header("retry-after")).isEqualTo("60");
    }

    @Test
    void inFlightCapAnswers503Overloaded() {
        simulator.setLimits(FAST.withMaxInFlight(1).withLatency(Duration.ofMillis(800)));
        var running = http.send("POST", CHAT, chat("hi", ""), true).toFuture();
        await().atMost(Duration.ofSeconds(2)).until(() -> server.stats().currentInFlight() == 1);

        LabHttp.Reply reply = http.post(CHAT, chat("hi", ""));

        assertThat(reply.status()).isEqualTo(503);
        JsonNode error = json(reply.body()).path("error");
        assertThat(error.path("code").asString()).isEqualTo("overloaded");
        assertThat(error.path("type").asString()).isEqualTo("server_error");
        assertThat(error.path("message").asString()).startsWith("The server is overloaded");
        assertThat(reply.header("retry-after")).isEqualTo("1");
        assertThat(reply.header("x-ratelimit-limit-requests")).isEqualTo("1500");
        assertThat(running.join().status()).isEqualTo(200);
        assertThat(server.stats().rejected503()).isEqualTo(1);
    }

    @Test
    void malformedJsonIs400InOpenAiShape() {
        LabHttp.Reply reply = http.post(CHAT, "{\"model\": \"gpt-4o\", \"messages\": [");
        assertThat(reply.status()).isEqualTo(400);
        JsonNode error = json(reply.body()).path("error");
        assertThat(error.path("type").asString()).isEqualTo("invalid_request_error");
        assertThat(error.path("message").asString()).contains("could not parse the JSON body");
        assertThat(reply.header("x-ratelimit-limit-tokens")).isEqualTo("300000");

        LabHttp.Reply noModel = http.post(CHAT, "{\"messages\":[]}");
        assertThat(noModel.status()).isEqualTo(400);
        assertThat(json(noModel.body()).path("error").path("param").asString()).isEqualTo("model");

        LabHttp.Reply badMax = http.post(CHAT, chat("hi", "\"max_tokens\":0"));
        assertThat(badMax.status()).isEqualTo(400);
        assertThat(json(badMax.body()).path("error").path("code").asString()).isEqualTo("integer_below_min_value");

        assertThat(server.stats().badRequests()).isEqualTo(3);
        assertThat(server.stats().admitted()).isZero();
    }

    @Test
    void labControlEndpointsReadResetAndChangeLimits() {
        http.post(CHAT, chat("hi", ""));
        JsonNode stats = json(http.get("/_lab/stats").body());
        assertThat(stats.path("completed").asLong()).isEqualTo(1);
        assertThat(stats.path("tokensBilled").asLong()).isEqualTo(208);
        assertThat(stats.path("costUsd").asDouble()).isEqualTo(208 * 3.0 / 1e6);
        assertThat(stats.path("limits").path("tokensPerMinute").asLong()).isEqualTo(300_000);

        LabHttp.Reply changed = http.put("/_lab/limits", "{\"maxInFlight\": 5, \"latencyMs\": 20}");
        assertThat(changed.status()).isEqualTo(200);
        assertThat(json(changed.body()).path("maxInFlight").asInt()).isEqualTo(5);
        assertThat(json(changed.body()).path("requestsPerMinute").asInt()).isEqualTo(1500);
        assertThat(simulator.limits().latency()).isEqualTo(Duration.ofMillis(20));

        LabHttp.Reply invalid = http.put("/_lab/limits", "{\"maxInFlight\": 0}");
        assertThat(invalid.status()).isEqualTo(400);
        assertThat(json(invalid.body()).path("error").path("message").asString())
                .contains("maxInFlight must be at least 1");
        LabHttp.Reply unknown = http.put("/_lab/limits", "{\"rpm\": 10}");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(json(unknown.body()).path("error").path("message").asString())
                .contains("unknown limit 'rpm'");
        LabHttp.Reply wrongType = http.put("/_lab/limits", "{\"tokensPerMinute\": \"lots\"}");
        assertThat(json(wrongType.body()).path("error").path("message").asString())
                .contains("tokensPerMinute must be an integer");
        assertThat(simulator.limits().maxInFlight()).isEqualTo(5);

        JsonNode afterReset = json(http.post("/_lab/reset", "").body());
        assertThat(afterReset.path("completed").asLong()).isZero();
        assertThat(afterReset.path("tokensBilled").asLong()).isZero();
        assertThat(afterReset.path("limits").path("maxInFlight").asInt()).isEqualTo(5);
    }

    @Test
    void completionsEmbeddingsAndResponsesAnswerWithTheirUsage() {
        JsonNode completion = json(http.post(
                        "/v1/completions",
                        "{\"model\":\"gpt-3.5-turbo-instruct\",\"prompt\":[\"one\",\"two\"],\"max_tokens\":3}")
                .body());
        assertThat(completion.path("object").asString()).isEqualTo("text_completion");
        assertThat(completion.path("choices").get(0).path("text").asString()).isEqualTo("the page text");
        assertThat(completion.path("usage").path("prompt_tokens").asLong()).isEqualTo(2);
        assertThat(completion.path("usage").path("completion_tokens").asLong()).isEqualTo(3);

        JsonNode embeddings = json(
                http.post("/v1/embeddings", "{\"model\":\"text-embedding-3-small\",\"input\":[\"a cat\",\"a dog\"]}")
                        .body());
        assertThat(embeddings.path("data")).hasSize(2);
        assertThat(embeddings.path("data").get(1).path("embedding").size()).isPositive();
        assertThat(embeddings.path("usage").path("prompt_tokens").asLong()).isEqualTo(4);
        assertThat(embeddings.path("usage").path("total_tokens").asLong()).isEqualTo(4);

        JsonNode response = json(http.post(
                        "/v1/responses",
                        "{\"model\":\"gpt-4o\",\"instructions\":\"Be brief.\",\"input\":\"hi\",\"max_output_tokens\":4}")
                .body());
        assertThat(response.path("object").asString()).isEqualTo("response");
        assertThat(response.path("status").asString()).isEqualTo("incomplete");
        assertThat(response.path("output")
                        .get(0)
                        .path("content")
                        .get(0)
                        .path("text")
                        .asString())
                .isEqualTo(OpenAiShapes.words(0, 4));
        long input = 3 + 4 + 3 + 4 + 1; // reply + "Be brief." + "hi", each message with its framing
        assertThat(response.path("usage").path("input_tokens").asLong()).isEqualTo(input);
        assertThat(response.path("usage").path("output_tokens").asLong()).isEqualTo(4);
        assertThat(response.path("usage").path("total_tokens").asLong()).isEqualTo(input + 4);

        assertThat(server.stats().tokensBilled()).isEqualTo((2 + 3) + 4 + (input + 4));
    }

    @Test
    void responsesStreamEndsWithResponseCompletedCarryingUsage() {
        String sse = http.post(
                        "/v1/responses",
                        "{\"model\":\"gpt-4o\",\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\","
                                + "\"text\":\"hi\"}]}],\"stream\":true}")
                .body();
        assertThat(sse)
                .contains("event: response.created\n", "event: response.output_text.delta\n")
                .doesNotContain("[DONE]");
        String[] events = sse.trim().split("\n\n");
        String last = events[events.length - 1];
        assertThat(last).startsWith("event: response.completed\n");
        JsonNode completed = json(last.substring(last.indexOf("data: ") + 6));
        assertThat(completed.path("type").asString()).isEqualTo("response.completed");
        assertThat(completed.path("response").path("usage").path("input_tokens").asLong())
                .isEqualTo(8);
        assertThat(completed
                        .path("response")
                        .path("usage")
                        .path("output_tokens")
                        .asLong())
                .isEqualTo(200);
    }

    @Test
    void completionsStreamWithUsage() {
        List<String> data = dataLines(http.post(
                        "/v1/completions",
                        "{\"model\":\"gpt-3.5-turbo-instruct\",\"prompt\":\"hi\",\"max_tokens\":4,\"stream\":true,"
                                + "\"stream_options\":{\"include_usage\":true}}")
                .body());
        assertThat(data.get(data.size() - 1)).isEqualTo("[DONE]");
        assertThat(json(data.get(data.size() - 2))
                        .path("usage")
                        .path("completion_tokens")
                        .asLong())
                .isEqualTo(4);
    }

    @Test
    void modelsUnknownPathsAndMissingKeys() {
        LabHttp.Reply models = http.get("/v1/models");
        assertThat(models.status()).isEqualTo(200);
        assertThat(json(models.body()).path("data").get(0).path("object").asString())
                .isEqualTo("model");
        assertThat(models.header("x-ratelimit-limit-requests")).isEqualTo("1500");

        LabHttp.Reply unknown = http.post("/v1/nope", "{}");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(json(unknown.body()).path("error").path("message").asString())
                .contains("/v1/nope");

        http.send("POST", CHAT, chat("hi", ""), false).block(Duration.ofSeconds(5));
        assertThat(server.stats().callsWithoutKey()).isEqualTo(1);
    }
}
