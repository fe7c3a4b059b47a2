package dev.sluice.gateway.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.testsupport.TestTenants;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A free tenant (10,000 tokens a minute, burst 1.0) fires a seeded mix of everything that makes
 * the provider write, all at once: chat with several choices and no cap, streams it cuts at once,
 * background Responses jobs, legacy completions. Counted at a provider that bills the whole
 * answer when it starts writing (whether the client stays or not), the tenant never makes it
 * write more than its window.
 */
class FreeTenantCannotOverspendTest extends HonestGatewayTest {
    /** Long enough that the gateway's count of the prompt is above the provider's (10 tokens). */
    static final String WORDS = "please extract the tables from page seven of the annual report and list them";

    @Test
    void noMixOfEndpointsMakesTheProviderWriteMoreThanTheTiersWindow() {
        long seed = Long.getLong("sluice.property.seed", System.nanoTime());
        System.out.println("FreeTenantCannotOverspendTest seed: " + seed);
        Random random = new Random(seed);
        TestTenants.Created tenant = TestTenants.create(tenants, "hostile", "free");
        String account = "account:hostile" + Math.abs(seed % 100000);
        List<Mono<Integer>> calls = new ArrayList<>();
        AtomicInteger refused = new AtomicInteger();
        for (int i = 0; i < 60; i++) {
            int kind = random.nextInt(4);
            int n = 1 + random.nextInt(4);
            boolean stream = random.nextBoolean();
            String text = WORDS + " " + account;
            String path;
            String body;
            switch (kind) {
                case 0 -> {
                    path = "/v1/chat/completions";
                    body = "{\"model\":\"gpt-4o-mini\",\"n\":" + n + (stream ? ",\"stream\":true" : "")
                            + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
                }
                case 1 -> {
                    path = "/v1/responses";
                    body = "{\"model\":\"gpt-4o-mini\",\"background\":true,\"input\":\"" + text + " mode:background\"}";
                }
                case 2 -> {
                    path = "/v1/completions";
                    body = "{\"model\":\"gpt-3.5-turbo-instruct\",\"n\":" + n + ",\"prompt\":\"" + text + "\"}";
                }
                default -> {
                    path = "/v1/responses";
                    body = "{\"model\":\"gpt-4o-mini\",\"stream\":true,\"input\":\"" + text + "\"}";
                }
            }
            boolean cut = stream || kind == 3;
            calls.add(WebClient.create()
                    .post()
                    .uri(url(path))
                    .header("Authorization", "Bearer " + tenant.key())
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(body)
                    .exchangeToMono(r -> {
                        if (r.statusCode().value() == 429) refused.incrementAndGet();
                        // A cut stream: the client reads one piece and leaves.
                        return (cut ? r.bodyToFlux(String.class).take(1).then() : r.releaseBody())
                                .thenReturn(r.statusCode().value());
                    }));
        }
        List<Integer> statuses =
                Flux.fromIterable(calls).flatMap(call -> call, 30).collectList().block(Duration.ofSeconds(60));

        assertThat(refused.get())
                .as("the attack reached the tier's wall: " + statuses)
                .isPositive();
        long window = config.current().tier("free").orElseThrow().minuteWindow().tokens();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(used(tenant, "free"))
                        .as("charged (seed " + seed + ")")
                        .isLessThanOrEqualTo(window));
        long written = UPSTREAM.billedTo(account.substring("account:".length()));
        System.out.printf(
                "[hostile] free tenant: %d calls, %d refused 429, provider wrote %d of a %d window%n",
                statuses.size(), refused.get(), written, window);
        assertThat(written)
                .as("written at the provider for this tenant (seed " + seed + ")")
                .isPositive()
                .isLessThanOrEqualTo(window);
    }
}
