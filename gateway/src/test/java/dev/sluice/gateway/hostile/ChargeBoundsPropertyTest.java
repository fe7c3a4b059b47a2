package dev.sluice.gateway.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.testsupport.HonestUpstream;
import dev.sluice.gateway.testsupport.TestTenants;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * For random request shapes (n, a cap or none, stream or not, the client cutting the answer at a
 * random byte, the provider reporting usage honestly, early, late or not at all, keeping the cap or
 * not), the tenant is charged at least the output it received and at most what the gateway
 * reserved or, where the provider wrote more than that, what the provider wrote. Seeded: the seed
 * is printed, and {@code -Dsluice.property.seed=N} replays a run.
 */
class ChargeBoundsPropertyTest extends HonestGatewayTest {
    static final String[] MODES = {"honest", "no-usage", "early-usage", "late-usage"};

    @Test
    void everyShapeIsChargedBetweenWhatWasReceivedAndWhatWasReservedOrWritten() {
        long seed = Long.getLong("sluice.property.seed", System.nanoTime());
        System.out.println(
                "ChargeBoundsPropertyTest seed: " + seed + " (replay with -Dsluice.property.seed=" + seed + ")");
        Random random = new Random(seed);
        long defaultCap = defaultCap("pro");
        for (int trial = 0; trial < 30; trial++) {
            int n = 1 + random.nextInt(3);
            long cap = random.nextBoolean() ? 0 : 1 + random.nextInt(600);
            boolean stream = random.nextBoolean();
            String mode = MODES[random.nextInt(MODES.length)];
            boolean ignoresCap = random.nextInt(4) == 0;
            int cutAt = random.nextInt(3) == 0 ? 1 + random.nextInt(6000) : Integer.MAX_VALUE;
            String body = "{\"model\":\"gpt-4o-mini\",\"n\":" + n + (cap > 0 ? ",\"max_tokens\":" + cap : "")
                    + (stream ? ",\"stream\":true" : "") + ",\"messages\":[{\"role\":\"user\",\"content\":\"mode:"
                    + mode
                    + (ignoresCap ? " mode:ignore-cap" : "") + "\"}]}";
            String shape = "trial " + trial + " (seed " + seed + "): " + body + ", cut at byte " + cutAt;

            TestTenants.Created tenant = TestTenants.create(tenants, "prop", "pro");
            String received = receive(tenant.key(), body, cutAt);
            long receivedTokens = countTokens(received);
            var estimate =
                    estimator.estimate("/v1/chat/completions", body.getBytes(StandardCharsets.UTF_8), defaultCap);
            long perChoice = ignoresCap ? HonestUpstream.UNCAPPED_TOKENS : cap > 0 ? cap : defaultCap;
            long written = n * perChoice;
            long upper = Math.max(
                    estimate.totalTokens(), Math.max(estimate.promptTokens(), HonestUpstream.PROMPT_TOKENS) + written);

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                long charged = used(tenant, "pro");
                assertThat(charged)
                        .as(shape + " charged, against received output " + receivedTokens)
                        .isGreaterThanOrEqualTo(receivedTokens)
                        .isLessThanOrEqualTo(upper);
            });
        }
    }

    /** The answer's bytes as the client read them, leaving after {@code cutAt} bytes. */
    private String receive(String key, String body, int cutAt) {
        ByteArrayOutputStream out = WebClient.create()
                .post()
                .uri(url("/v1/chat/completions"))
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .retrieve()
                .bodyToFlux(DataBuffer.class)
                .scan(new ByteArrayOutputStream(), (acc, b) -> {
                    byte[] bytes = new byte[b.readableByteCount()];
                    b.read(bytes);
                    DataBufferUtils.release(b);
                    acc.writeBytes(bytes);
                    return acc;
                })
                .takeUntil(acc -> acc.size() >= cutAt)
                .last(new ByteArrayOutputStream())
                .block(Duration.ofSeconds(20));
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The upstream writes every output token as " a": what the client holds of them. */
    private static long countTokens(String received) {
        long count = 0;
        for (int i = received.indexOf(" a"); i >= 0; i = received.indexOf(" a", i + 2)) count++;
        return count;
    }
}
