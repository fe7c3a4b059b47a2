package dev.sluice.gateway.dispatch.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.LadderSettings;
import dev.sluice.gateway.config.ModelLimits;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.TestTenants;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The provider budget is corrected from the provider's own x-ratelimit-* headers only. A free
 * tenant's request that was held by the ladder carries the tenant's own x-ratelimit-* on its
 * response from that first refusal; an upstream that sends none of its own must not have the
 * tenant's read back as the provider's (they once charged the whole provider minute at once,
 * and every tenant queued behind it). Run on both budget stores.
 */
abstract class TenantHeadersNeverReachTheBudgetContract {
    static final long T0 = 1_960_000_000_000L;
    static final FakeClock CLOCK = new FakeClock(T0);
    /**
     * A model with gpt-4o-mini's limits and a budget of this test's own. With Redis, database 0's
     * budgets are shared with every other test's gateway still alive in the JVM, whose slices are
     * taken and given back while this test counts (a clean-clone run saw 139 k tokens leave
     * default:gpt-4o-mini during it).
     */
    static final String MODEL = "gpt-4o-mini-tenant-headers";

    /** No x-ratelimit-* and no usage: the estimate stands, so the budget's count is known exactly. */
    static FakeUpstreamExtension upstreamWithoutHeaders() {
        return FakeUpstreamExtension.answering("{\"id\":\"no-headers\"}");
    }

    @TestConfiguration
    static class Clocks {
        @Bean
        @Primary
        QuotaClock fakeClock() {
            return new QuotaClock(CLOCK);
        }
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    MeterRegistry meters;

    @Autowired
    ProviderBudgetStore budgets;

    @Autowired
    ConfigRegistry config;

    @Test
    void aHeldRequestsTenantHeadersDoNotInflateTheSharedBudget() throws Exception {
        // The ladder's hold fixed at 2 s, in this replica's config only (the shared document may be
        // another test's): the test moves the clock during the hold, and 200-800 ms was too short a
        // window for that on a loaded CI machine.
        SluiceConfig before = config.current();
        LadderSettings l = before.ladder();
        List<ProviderSettings> providers = new ArrayList<>(before.providers());
        ProviderSettings first = providers.get(0);
        Map<String, ModelLimits> models = new LinkedHashMap<>(first.models());
        models.put(MODEL, first.limitsFor("gpt-4o-mini"));
        providers.set(
                0,
                new ProviderSettings(
                        first.name(),
                        first.baseUrl(),
                        first.apiKeyEnv(),
                        first.headroom(),
                        models,
                        first.upstreamModels()));
        config.replace(new SluiceConfig(
                before.tiers(),
                new LadderSettings(l.downgradeAbove(), 2_000, 2_000, 2_000, l.maxHeld()),
                before.abuse(),
                providers,
                before.demoTenants()));
        try {
            heldRequest();
        } finally {
            config.replace(before);
        }
    }

    void heldRequest() throws Exception {
        CLOCK.set(T0);
        String key = TestTenants.create(tenants, "held", "free").key();
        long before =
                budget().usedTokens(); // the budget's window is on real time: an earlier run of this test may have
        // charged it
        int inFlight = budget().inFlight();

        assertThat(chat(key, 9_000).getStatusCode().value()).isEqualTo(200); // 9 000 of the free minute's 10 000
        CLOCK.set(T0 + 60_500); // 500 ms before that leaves the window: the next one is held, not refused
        CompletableFuture<ResponseEntity<String>> held = CompletableFuture.supplyAsync(() -> chat(key, 2_000));
        // The clock must move within the hold, or the retry still finds no room.
        await().atMost(Duration.ofSeconds(10))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(5))
                .until(() -> meters.get("sluice.ladder.held").gauge().value() == 1.0);
        CLOCK.set(T0 + 61_000);
        ResponseEntity<String> served = held.get();
        assertThat(served.getStatusCode().value())
                .as("%s %s", served.getHeaders(), served.getBody())
                .isEqualTo(200);
        assertThat(served.getHeaders().getFirst("X-Sluice-Degraded")).isEqualTo("delayed; ms=2000");
        // The tenant still sees its own headers, not the provider's (it sent none).
        assertThat(served.getHeaders().getFirst("x-ratelimit-limit-tokens")).isEqualTo("10000");

        // The slot is given back after the correction is sent (same connection, in order): then the count is final.
        await().atMost(Duration.ofSeconds(5)).until(() -> budget().inFlight() == inFlight);
        long charged = budget().usedTokens() - before;
        assertThat(charged)
                .as("the two requests' estimates, not the provider's minute (%d)", limits().tokensPerMinute())
                .isLessThan(11_100);
        assertThat(charged).isGreaterThanOrEqualTo(11_000);
    }

    ResponseEntity<String> chat(String key, int maxTokens) {
        return WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"" + MODEL + "\",\"max_tokens\":" + maxTokens
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"page\"}]}")
                .exchangeToMono(r -> r.toEntity(String.class))
                .block(Duration.ofSeconds(20));
    }

    BudgetLimits limits() {
        return BudgetLimits.of(config.current().providers().get(0), MODEL, Duration.ofMinutes(10));
    }

    BudgetSnapshot budget() {
        ProviderSettings provider = config.current().providers().get(0);
        return budgets.snapshot(ProviderBudgetStore.key(provider, MODEL), limits())
                .block(Duration.ofSeconds(5));
    }
}
