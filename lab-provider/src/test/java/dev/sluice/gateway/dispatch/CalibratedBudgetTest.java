package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.calibration.ProviderCalibration;
import dev.sluice.gateway.dispatch.calibration.TokenCalibration;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * The whole gateway in front of a lab provider whose tokenizer finds 15 % more tokens than the
 * estimator: after a few answers the gateway has learned the ratio (metric and overview) and
 * charges the provider budget the prompt at that ratio, not at its own estimate. The tenant's
 * quota is not part of this: it is charged the estimate as before. Calls take 800 ms, long
 * enough to read the budget while one is in flight (its charge not yet corrected by its usage).
 */
@GatewayTest(
        properties = {
            "sluice.lab.count-factor=1.15",
            "sluice.lab.latency=800ms",
            "sluice.lab.latency-jitter=0",
            "sluice.admin.user=ops",
            "sluice.admin.password=calibration test"
        })
class CalibratedBudgetTest {
    static final String KEY = "default:*";
    static final int MAX_TOKENS = 100;
    /** About 2,000 tokens: the provider's 7 tokens of framing (which it does not scale) weigh 0.3 %. */
    static final String PAGE =
            "The quick brown fox jumps over the lazy dog, and then it reads a page of a book. ".repeat(100);

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    ProviderBudgetStore budgets;

    @Autowired
    ConfigRegistry config;

    @Autowired
    MeterRegistry meters;

    @Test
    void theProviderBudgetIsChargedWhatTheProviderCountsOnceItHasAnswered() {
        String key = TestTenants.create(tenants, "calibration", "enterprise").key();
        Gauge ratio = meters.find(ProviderCalibration.GAUGE)
                .tag("provider", "default")
                .tag("model", "*")
                .gauge();
        assertThat(ratio).as("registered at start").isNotNull();
        assertThat(ratio.value())
                .as("before any answer: the conservative default")
                .isEqualTo(1.25);

        // Before any answer: the charge is the estimate (the prompt) at the default ratio and the reserved output.
        long estimate = (long) Math.floor((chargeInFlight(key) - MAX_TOKENS) / 1.25);
        assertThat(estimate).isGreaterThan(1_500);
        // That first answer alone sets the ratio (fast start); a few more at once.
        List<CompletableFuture<ResponseEntity<String>>> more =
                IntStream.range(0, 4).mapToObj(i -> send(key)).toList();
        long counted = 0;
        for (var call : more) counted = promptTokens(call.join());
        assertThat((double) counted / estimate).isCloseTo(1.15, within(0.01)); // what the lab counts, for the record
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(ratio.value()).isCloseTo(1.15, within(0.01)));
        double learned = ratio.value();

        // Now the budget is charged the prompt as the provider counts it.
        long charged = chargeInFlight(key);
        assertThat(charged).isEqualTo(TokenCalibration.charge(estimate, MAX_TOKENS, learned));
        assertThat(charged - MAX_TOKENS)
                .isCloseTo(counted, within(counted / 100)); // within 1 % of the provider's count
        assertThat(overviewRatio()).isCloseTo(learned, within(1e-3));
    }

    /** Sends one call and returns what the provider budget was charged for it while it was in flight. */
    private long chargeInFlight(String key) {
        long before = snapshot().usedTokens();
        CompletableFuture<ResponseEntity<String>> call = send(key);
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> snapshot().inFlight() == 1);
        long charged = snapshot().usedTokens() - before;
        assertThat(call.join().getStatusCode().value()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(5)).until(() -> snapshot().inFlight() == 0);
        return charged;
    }

    private BudgetSnapshot snapshot() {
        ProviderSettings provider = config.current().providers().get(0);
        return budgets.snapshot(KEY, BudgetLimits.of(provider, "gpt-4o-mini", Duration.ofMinutes(10)))
                .block(Duration.ofSeconds(5));
    }

    private CompletableFuture<ResponseEntity<String>> send(String key) {
        String body = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":" + MAX_TOKENS
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + PAGE + "\"}]}";
        return WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchangeToMono(r -> r.toEntity(String.class))
                .toFuture();
    }

    private static long promptTokens(ResponseEntity<String> answer) {
        assertThat(answer.getStatusCode().value()).isEqualTo(200);
        return JsonMapper.shared()
                .readTree(answer.getBody())
                .path("usage")
                .path("prompt_tokens")
                .asLong();
    }

    private double overviewRatio() {
        String json = WebClient.create("http://127.0.0.1:" + port)
                .get()
                .uri("/admin/api/overview")
                .headers(h -> h.setBasicAuth("ops", "calibration test"))
                .retrieve()
                .bodyToMono(String.class)
                .block(Duration.ofSeconds(5));
        for (var b : JsonMapper.shared().readTree(json).path("budgets")) {
            if (KEY.equals(b.path("budget").asString()))
                return b.path("tokenRatio").asDouble();
        }
        throw new AssertionError("no budget " + KEY + " in the overview: " + json);
    }
}
