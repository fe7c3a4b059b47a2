package dev.sluice.gateway.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.objects.ObjectOwnership;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.HonestUpstream;
import dev.sluice.gateway.testsupport.TestTenants;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

/**
 * A tenant is charged what the provider wrote for it, whatever the answer's size, {@code n}, or
 * whether it set a cap: against an upstream that does exactly what it is asked and says so.
 */
class SettlementTest extends HonestGatewayTest {
    @Autowired
    ObjectOwnership ownership;

    TestTenants.Created tenant;

    @BeforeEach
    void tenant() {
        tenant = TestTenants.create(tenants, "settle", "pro");
    }

    long used() {
        return used(tenant, "pro");
    }

    String post(String path, String body) {
        return WebClient.builder()
                .codecs(c -> c.defaultCodecs().maxInMemorySize(64 << 20))
                .build()
                .post()
                .uri(url(path))
                .header("Authorization", "Bearer " + tenant.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .retrieve()
                .bodyToMono(String.class)
                .block(Duration.ofSeconds(20));
    }

    void settlesTo(long expected) {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(used()).isEqualTo(expected));
    }

    @Test
    void severalChoicesAreChargedAllTheirTokens() {
        post(
                "/v1/chat/completions",
                "{\"model\":\"gpt-4o-mini\",\"n\":4,\"max_tokens\":500,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        settlesTo(HonestUpstream.billed(4, 500));
    }

    @Test
    void aBigAnswerIsChargedItsUsage() {
        post(
                "/v1/chat/completions",
                "{\"model\":\"gpt-4o-mini\",\"max_tokens\":4000,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        settlesTo(HonestUpstream.billed(1, 4000));
    }

    static final String CHAT = "{\"model\":\"gpt-4o-mini\",%s\"messages\":[{\"role\":\"user\",\"content\":\"%s\"}]}";

    /** The reservation the gateway makes for this chat body on the pro tier. */
    long reserved(String body) {
        return estimator
                .estimate("/v1/chat/completions", body.getBytes(StandardCharsets.UTF_8), defaultCap("pro"))
                .totalTokens();
    }

    FakeUpstream.Recorded lastCall() {
        FakeUpstream.Recorded last = null;
        for (FakeUpstream.Recorded r; (r = UPSTREAM.server().requests().poll()) != null; ) last = r;
        return last;
    }

    @Test
    void aRequestWithoutACapGetsTheTiersDefaultWrittenIntoTheForwardedBody() {
        UPSTREAM.server().requests().clear();
        String body = String.format(CHAT, "", "hi");
        post("/v1/chat/completions", body);
        long cap = defaultCap("pro");
        assertThat(lastCall().body()).contains("\"max_completion_tokens\":" + cap);
        settlesTo(HonestUpstream.billed(1, cap));
        assertThat(used()).isLessThanOrEqualTo(reserved(body) + HonestUpstream.PROMPT_TOKENS);
    }

    @Test
    void aResponsesJobInTheBackgroundIsCappedAndChargedItsReservation() {
        UPSTREAM.server().requests().clear();
        String body = "{\"model\":\"gpt-4o-mini\",\"background\":true,\"input\":\"mode:background\"}";
        post("/v1/responses", body);
        long cap = defaultCap("pro");
        assertThat(lastCall().body()).contains("\"max_output_tokens\":" + cap);
        settlesTo(promptOf("/v1/responses", body) + cap);
    }

    @Test
    void aJsonAnswerWithoutUsageIsChargedTheTextItCarriedWhenThatIsMoreThanTheReservation() {
        String body = String.format(CHAT, "\"max_tokens\":100,", "mode:no-usage mode:ignore-cap");
        post("/v1/chat/completions", body);
        // The provider wrote 4,000 tokens against a cap of 100 and did not say so: the text is counted.
        settlesTo(promptOf("/v1/chat/completions", body) + HonestUpstream.UNCAPPED_TOKENS);
    }

    @Test
    void aJsonAnswerWithoutUsageIsChargedAtLeastItsReservation() {
        String body = String.format(CHAT, "\"max_tokens\":300,", "mode:no-usage");
        post("/v1/chat/completions", body);
        settlesTo(reserved(body));
    }

    @Test
    void aClientThatHangsUpAsTheAnswerEndsIsChargedTheAnswersUsage() {
        String body = String.format(CHAT, "\"max_tokens\":3000,", "mode:slow-end");
        String whole = readUntil(body, read -> read.trim().endsWith("}}")); // the usage has arrived: leave
        assertThat(whole).contains("\"usage\"");
        settlesTo(HonestUpstream.billed(1, 3000));
    }

    @Test
    void aClientThatHangsUpInsideAJsonAnswersTextIsChargedWhatItRead() {
        // A provider that ignores the cap writes 4,000 tokens; the client reads the first half of the one text
        // string and leaves before the rest and the usage come. It had read about 2,000 tokens: the reservation
        // (prompt and a cap of 100) must not be all it pays.
        String body = String.format(CHAT, "\"max_tokens\":100,", "mode:split-text mode:ignore-cap");
        // Leave once 1,500 tokens have come: the first half carries about 2,000, so this is inside the text however
        // the bytes were cut on the way (leaving at a byte count was not: 3,000 bytes was once only 1,464 tokens).
        String read = readUntil(body, sofar -> tokens(sofar) > 1_500);
        long tokensRead = tokens(read);
        assertThat(read).doesNotContain("\"usage\"");
        assertThat(tokensRead).isGreaterThan(1_500);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(used()).isGreaterThanOrEqualTo(tokensRead));
    }

    /** The honest upstream's text is " a" once per token. */
    private static long tokens(String read) {
        return read.split(" a", -1).length - 1;
    }

    /** A chat answer's bytes as the client read them, hanging up once {@code leave} holds of what it has. */
    private String readUntil(String body, Predicate<String> leave) {
        return WebClient.create()
                .post()
                .uri(url("/v1/chat/completions"))
                .header("Authorization", "Bearer " + tenant.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .retrieve()
                .bodyToFlux(DataBuffer.class)
                .scan(new ByteArrayOutputStream(), (out, b) -> {
                    byte[] bytes = new byte[b.readableByteCount()];
                    b.read(bytes);
                    DataBufferUtils.release(b);
                    out.writeBytes(bytes);
                    return out;
                })
                .map(out -> out.toString(StandardCharsets.UTF_8))
                .takeUntil(leave)
                .last()
                .block(Duration.ofSeconds(10));
    }

    String stream(String path, String body, int events) {
        Flux<String> flux = WebClient.create()
                .post()
                .uri(url(path))
                .header("Authorization", "Bearer " + tenant.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .retrieve()
                .bodyToFlux(String.class);
        return String.join(
                "\n", (events > 0 ? flux.take(events) : flux).collectList().block(Duration.ofSeconds(20)));
    }

    @Test
    void aStreamWithoutAUsageChunkIsChargedWhatItStreamed() {
        String body = String.format(CHAT, "\"stream\":true,\"max_tokens\":100,", "mode:no-usage mode:ignore-cap");
        stream("/v1/chat/completions", body, 0);
        settlesTo(promptOf("/v1/chat/completions", body) + HonestUpstream.UNCAPPED_TOKENS);
    }

    @Test
    void aStreamWhoseUsageComesBeforeTheRestOfItsTextIsChargedTheText() {
        String body = String.format(CHAT, "\"stream\":true,\"max_tokens\":2000,", "mode:early-usage");
        stream("/v1/chat/completions", body, 0);
        // The usage said 50 tokens of output; 2,000 passed: the provider's prompt and the text that passed.
        settlesTo(HonestUpstream.PROMPT_TOKENS + 2000);
    }

    @Test
    void aStreamWhoseUsageComesLateIsChargedTheUsage() {
        String body = String.format(CHAT, "\"stream\":true,\"max_tokens\":500,", "mode:late-usage");
        stream("/v1/chat/completions", body, 0);
        settlesTo(HonestUpstream.billed(1, 500));
    }

    @Test
    void aStreamTheClientCutsBeforeItsUsageIsChargedItsReservation() {
        String body = String.format(CHAT, "\"stream\":true,\"max_tokens\":3000,", "mode:no-usage");
        stream("/v1/chat/completions", body, 20); // 20 events of 50 tokens, then the client leaves
        settlesTo(promptOf("/v1/chat/completions", body) + 3000);
    }

    @Test
    void aStreamTheClientCutsPastItsReservationIsChargedWhatItReceived() {
        String body = String.format(CHAT, "\"stream\":true,\"max_tokens\":100,", "mode:no-usage mode:ignore-cap");
        stream("/v1/chat/completions", body, 40); // 40 events of 50 tokens from a provider that ignores the cap
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() ->
                        assertThat(used()).isGreaterThanOrEqualTo(promptOf("/v1/chat/completions", body) + 39 * 50));
    }

    @Test
    void readingAStoredResponseChargesNoTokens() {
        String created = post("/v1/responses", "{\"model\":\"gpt-4o-mini\",\"max_output_tokens\":50,\"input\":\"hi\"}");
        String id = created.substring(created.indexOf("resp_"), created.indexOf('"', created.indexOf("resp_")));
        await().atMost(Duration.ofSeconds(10)).until(() -> used() > 0);
        long before = used();
        String read = WebClient.create()
                .get()
                .uri(url("/v1/responses/" + id))
                .header("Authorization", "Bearer " + tenant.key())
                .retrieve()
                .bodyToMono(String.class)
                .block(Duration.ofSeconds(10));
        assertThat(read).contains("\"usage\"");
        // The read's answer shows the usage of the call that made it: nothing of it is charged again.
        await().during(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(used()).isEqualTo(before));
    }

    @Test
    void anErrorObjectWithStatus200IsA502WithTheProvidersTextHiddenAndOnlyThePromptCharged() {
        String body = String.format(CHAT, "\"max_tokens\":100,", "mode:error-200");
        var answer = WebClient.create()
                .post()
                .uri(url("/v1/chat/completions"))
                .header("Authorization", "Bearer " + tenant.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchangeToMono(r ->
                        r.bodyToMono(String.class).map(text -> r.statusCode().value() + " " + text))
                .block(Duration.ofSeconds(10));
        assertThat(answer).startsWith("502").contains("upstream_error").doesNotContain("org-SECRET");
        settlesTo(promptOf("/v1/chat/completions", body));
    }

    @Test
    void imagesWithoutUsageAreChargedTheirStandInPerImage() {
        String body = "{\"model\":\"dall-e-3\",\"prompt\":\"a lighthouse\",\"n\":10,\"size\":\"1024x1024\"}";
        post("/v1/images/generations", body);
        settlesTo(estimator
                .estimate("/v1/images/generations", body.getBytes(StandardCharsets.UTF_8), 1)
                .totalTokens());
        assertThat(used()).isGreaterThanOrEqualTo(10 * 4160);
    }

    @Test
    void speechIsChargedPerCharacter() {
        String input = "x".repeat(4096);
        String body = "{\"model\":\"gpt-4o-mini-tts\",\"voice\":\"alloy\",\"input\":\"" + input + "\"}";
        byte[] audio = WebClient.create()
                .post()
                .uri(url("/v1/audio/speech"))
                .header("Authorization", "Bearer " + tenant.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .retrieve()
                .bodyToMono(byte[].class)
                .block(Duration.ofSeconds(10));
        assertThat(audio).hasSize(4096); // audio passes as it came: a speech answer is not JSON
        settlesTo(promptOf("/v1/audio/speech", body) + 4096);
    }

    /** The tokens the answer's x-ratelimit-remaining-tokens says are left, after this request's reservation. */
    long remainingAfter(String path, String body) {
        return WebClient.create()
                .post()
                .uri(url(path))
                .header("Authorization", "Bearer " + tenant.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchangeToMono(r -> r.releaseBody()
                        .thenReturn(
                                Long.parseLong(r.headers().asHttpHeaders().getFirst("x-ratelimit-remaining-tokens"))))
                .block(Duration.ofSeconds(20));
    }

    @Test
    void aResponseThatContinuesAnotherReservesThePreviousContextItReadsAgain() {
        String first = post("/v1/responses", "{\"model\":\"gpt-4o-mini\",\"max_output_tokens\":3000,\"input\":\"hi\"}");
        String id = first.substring(first.indexOf("resp_"), first.indexOf('"', first.indexOf("resp_")));
        settlesTo(HonestUpstream.billed(1, 3000));
        long window = config.current().tier("pro").orElseThrow().minuteWindow().tokens();
        String next = "{\"model\":\"gpt-4o-mini\",\"max_output_tokens\":50,\"previous_response_id\":\"" + id
                + "\",\"input\":\"more\"}";
        long reserved = window - HonestUpstream.billed(1, 3000) - remainingAfter("/v1/responses", next);
        assertThat(reserved)
                .as("the continuation's reservation")
                .isEqualTo(promptOf("/v1/responses", next) + 3010 + 50);
        // And it is charged what the provider counted: its predecessor's 3,010 again, 10 of its own, 50 written.
        settlesTo(HonestUpstream.billed(1, 3000) + 3010 + HonestUpstream.PROMPT_TOKENS + 50);
    }

    @Test
    void aStreamedResponsesContextIsRecordedAtItsEndForTheNextCall() {
        String events = stream(
                "/v1/responses",
                "{\"model\":\"gpt-4o-mini\",\"stream\":true,\"max_output_tokens\":1000,\"input\":\"hi\"}",
                0);
        settlesTo(HonestUpstream.billed(1, 1000));
        String id = events.substring(events.indexOf("resp_"), events.indexOf('"', events.indexOf("resp_")));
        long window = config.current().tier("pro").orElseThrow().minuteWindow().tokens();
        String next = "{\"model\":\"gpt-4o-mini\",\"max_output_tokens\":50,\"previous_response_id\":\"" + id
                + "\",\"input\":\"more\"}";
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(
                                ownership.owner(id).block(Duration.ofSeconds(5)).contextTokens())
                        .isEqualTo(1010));
        long reserved = window - HonestUpstream.billed(1, 1000) - remainingAfter("/v1/responses", next);
        assertThat(reserved).isEqualTo(promptOf("/v1/responses", next) + 1010 + 50);
    }
}
