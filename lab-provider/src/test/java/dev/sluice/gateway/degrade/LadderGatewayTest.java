package dev.sluice.gateway.degrade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The ladder from outside, on a pro tenant (150 000 tokens a minute with its burst): past 80%
 * its model is downgraded; past its window it is first held, then refused.
 */
@GatewayTest(
        properties = {
            "sluice.lab.completion-tokens=100000", // the lab writes max_tokens: usage = estimate
            "sluice.lab.tokens-per-minute=100000000"
        }) // the tenant's limits are under test, not the provider's
class LadderGatewayTest {
    static final long T0 = 1_950_000_000_000L;
    static final FakeClock CLOCK = new FakeClock(T0);

    @TestConfiguration
    static class Clocks {
        @Bean
        @Primary
        QuotaClock fakeClock() {
            return new QuotaClock(CLOCK);
        }
    }

    /** tiers.yaml as shipped, but a provider roomy enough that only the tenant's limits are under test. */
    @DynamicPropertySource
    static void roomyProvider(DynamicPropertyRegistry registry) throws IOException {
        String yaml = Files.readString(Path.of("../tiers.yaml"))
                .replace("tokens-per-minute: 300000", "tokens-per-minute: 100000000");
        Path file = Files.createTempFile("tiers-roomy", ".yaml");
        Files.writeString(file, yaml);
        file.toFile().deleteOnExit();
        registry.add("sluice.tiers.path", file::toString);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    MeterRegistry meters;

    String key;

    @BeforeEach
    void proTenant() {
        CLOCK.set(T0);
        key = TestTenants.create(tenants, "ladder", "pro").key();
    }

    ResponseEntity<String> chat(String model, int maxTokens, boolean critical) {
        var spec = WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON);
        if (critical) spec = spec.header("X-Sluice-No-Downgrade", "true");
        return spec.bodyValue("{\"model\":\"" + model + "\",\"max_tokens\":" + maxTokens
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"page\"}]}")
                .exchangeToMono(r -> r.toEntity(String.class))
                .block(Duration.ofSeconds(20));
    }

    @Test
    void pastEightyPercentTheModelIsDowngradedAndTheUpstreamSeesTheCheaperOne() {
        for (int i = 0; i < 6; i++) { // 6 × ~20 000 = 80%: not above yet
            ResponseEntity<String> r = chat("gpt-4o", 19_990, false);
            assertThat(r.getHeaders().getFirst("X-Sluice-Degraded")).isNull();
            assertThat(r.getBody()).contains("\"model\":\"gpt-4o\"");
        }
        ResponseEntity<String> critical = chat("gpt-4o", 1_000, true);
        assertThat(critical.getHeaders().getFirst("X-Sluice-Degraded"))
                .as("pro honours No-Downgrade")
                .isNull();

        ResponseEntity<String> r = chat("gpt-4o", 19_990, false);
        assertThat(r.getStatusCode().value()).isEqualTo(200);
        assertThat(r.getHeaders().getFirst("X-Sluice-Degraded"))
                .isEqualTo("model-downgraded; from=gpt-4o; to=gpt-4o-mini");
        assertThat(r.getBody()).contains("\"model\":\"gpt-4o-mini\""); // what the lab provider was asked for
    }

    @Test
    void pastItsWindowARequestIsHeldFirstThenRefused() throws Exception {
        for (int i = 0; i < 7; i++)
            assertThat(chat("gpt-4o-mini", 19_990, false).getStatusCode().value())
                    .isEqualTo(200);
        // 140 000 of 150 000 used, all charged in the slot [T0, T0+1 s), which leaves at T0 + 61 s.

        CLOCK.set(T0 + 60_500); // 500 ms before room appears: worth a short hold
        CompletableFuture<ResponseEntity<String>> held =
                CompletableFuture.supplyAsync(() -> chat("gpt-4o-mini", 19_990, false));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> meters.get("sluice.ladder.held").gauge().value() == 1.0);
        CLOCK.set(T0 + 61_000); // time passes while it is held
        ResponseEntity<String> delayed = held.get();
        assertThat(delayed.getStatusCode().value()).isEqualTo(200);
        assertThat(delayed.getHeaders().getFirst("X-Sluice-Degraded")).matches("delayed; ms=\\d+");
        long ms = Long.parseLong(
                delayed.getHeaders().getFirst("X-Sluice-Degraded").replaceAll("\\D", ""));
        assertThat(ms).isBetween(500L, 800L);

        // Fill the window again from T0 + 61 s: the next refusal needs a minute, far past the longest delay worth
        // taking.
        ResponseEntity<String> refused = chat("gpt-4o-mini", 19_990, false);
        for (int i = 0; i < 10 && refused.getStatusCode().value() == 200; i++)
            refused = chat("gpt-4o-mini", 19_990, false);
        assertThat(refused.getStatusCode().value()).isEqualTo(429);
        assertThat(refused.getHeaders().getFirst("X-Sluice-Degraded")).isNull();
        assertThat(Long.parseLong(refused.getHeaders().getFirst("retry-after-ms")))
                .isGreaterThan(2_000);
    }

    @Test
    void aHeldRequestThatStillDoesNotFitIsRefusedNotHeldAgain() {
        for (int i = 0; i < 7; i++) chat("gpt-4o-mini", 19_990, false);
        CLOCK.set(T0 + 60_500);
        ResponseEntity<String> r = chat("gpt-4o-mini", 19_990, false); // the clock does not move while it is held
        assertThat(r.getStatusCode().value()).isEqualTo(429);
        assertThat(r.getHeaders().getFirst("X-Sluice-Degraded")).startsWith("delayed; ms=");
    }
}
