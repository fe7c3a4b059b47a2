package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.lab.provider.Admission;
import dev.sluice.lab.provider.LabProviderServer;
import dev.sluice.lab.provider.LabStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The whole gateway in front of a lab provider that meters input and output apart, as Anthropic
 * does (ITPM 100,000, OTPM 5,000, no total), with the same limits declared to the gateway. A
 * burst asks for far more output (max_tokens 1,000 each) than the provider admits in a minute,
 * while the model writes 50 tokens a call. The gateway reserves max_tokens in its output window,
 * as the provider does, and settles it to what was written when the answer's usage arrives, so the
 * burst goes through in waves (streams and plain answers alike): every call served, none refused
 * by the provider, and the output window, not the input or the requests, is what held calls back.
 * The console's overview shows the use of each. (Declared as a total of 300,000 instead, the same
 * burst met 18 × 429 at the provider and 18 of the 24 calls ended 503.)
 */
@GatewayTest(
        properties = {
            "sluice.lab.tokens-per-minute=0",
            "sluice.lab.input-tokens-per-minute=100000",
            "sluice.lab.output-tokens-per-minute=5000",
            "sluice.lab.completion-tokens=50",
            "sluice.lab.latency=300ms",
            "sluice.lab.latency-jitter=0",
            "sluice.admin.user=ops",
            "sluice.admin.password=split limits test"
        })
class SplitLimitsGatewayTest {
    static final int CALLS = 24;
    static final int MAX_TOKENS = 1_000;

    /** tiers.yaml as shipped, the provider's limits declared as the lab enforces them: input and output apart. */
    @DynamicPropertySource
    static void splitProvider(DynamicPropertyRegistry registry) throws IOException {
        String shipped = Files.readString(Path.of("../tiers.yaml"));
        String yaml = shipped.replace(
                "        tokens-per-minute: 300000\n",
                "        input-tokens-per-minute: 100000\n        output-tokens-per-minute: 5000\n");
        assertThat(yaml).as("the provider's limits in tiers.yaml").isNotEqualTo(shipped);
        Path file = Path.of("target", "split-limits-tiers.yaml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, yaml);
        registry.add("sluice.tiers.path", () -> file.toAbsolutePath().toString());
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    LabProviderServer lab;

    @Autowired
    ProviderBudgetStore budgets;

    @Autowired
    ConfigRegistry config;

    @Test
    void aBurstPastTheOutputLimitIsHeldByTheGatewayNotRefusedByTheProvider() {
        String key = TestTenants.create(tenants, "split", "enterprise").key();
        lab.reset();
        AtomicLong leastOutputRoom = new AtomicLong(Long.MAX_VALUE);
        AtomicLong leastInputRoom = new AtomicLong(Long.MAX_VALUE);
        AtomicLong leastRequestRoom = new AtomicLong(Long.MAX_VALUE);
        lab.simulator().listener((now, admission, reserved) -> {
            if (admission instanceof Admission.Admitted a) { // the provider's room once this call is in
                leastOutputRoom.accumulateAndGet(a.rateLimits().remainingOutputTokens(), Math::min);
                leastInputRoom.accumulateAndGet(a.rateLimits().remainingInputTokens(), Math::min);
                leastRequestRoom.accumulateAndGet(a.rateLimits().remainingRequests(), Math::min);
            }
        });
        try {
            // Half of them streams: their usage comes in the last event, and settles the output the same way.
            List<CompletableFuture<ResponseEntity<String>>> burst = IntStream.range(0, CALLS)
                    .mapToObj(i -> send(key, i % 2 == 1))
                    .toList();
            List<ResponseEntity<String>> answers =
                    burst.stream().map(CompletableFuture::join).toList();

            assertThat(answers)
                    .allSatisfy(a -> assertThat(a.getStatusCode().value())
                            .as(a.getBody())
                            .isEqualTo(200));
            LabStats stats = lab.stats();
            assertThat(stats.rejected429()).as("429s at the provider").isZero();
            assertThat(stats.rejected503()).isZero();
            assertThat(stats.completed()).isEqualTo(CALLS);
            // 24 × 1,000 reserved against 5,000 a minute: without settling output the burst would wait
            // a minute; settled to 50 a call, it goes in waves of a few calls as answers come back.
            assertThat(answers)
                    .as("calls held back in the gateway's queue")
                    .anySatisfy(a -> assertThat(a.getHeaders().getFirst("X-Sluice-Queue-Wait-Ms"))
                            .isNotNull());
            // Output was the binding dimension: the provider's output window came within one call
            // of full (the gateway's headroom of 3 % keeps it from the very top), while the input and
            // the requests kept most of their room.
            assertThat(leastOutputRoom.get()).isLessThan(MAX_TOKENS);
            assertThat(leastInputRoom.get()).isGreaterThan(90_000);
            assertThat(leastRequestRoom.get()).isGreaterThan(1_400);

            JsonNode utilisation = overviewBudget().path("utilisation");
            assertThat(utilisation.has("inputTokens"))
                    .as(utilisation.toString())
                    .isTrue();
            // What is left in the minute: 50 written per call, against 4,850 (5,000 less the headroom).
            assertThat(utilisation.path("outputTokens").asDouble())
                    .as(utilisation.toString())
                    .isGreaterThan(0.1);
        } finally {
            lab.simulator().listener(null);
        }
    }

    /** A client's mistake is a 400, never sent: no wait lets 6,000 output tokens into a minute of 5,000. */
    @Test
    void maxTokensPastTheOutputLimitIsRefusedAtOnceAndNeverSent() {
        String key = TestTenants.create(tenants, "split-large", "enterprise").key();
        long received = lab.stats().received();
        String body =
                "{\"model\":\"gpt-4o-mini\",\"max_tokens\":6000,\"messages\":[{\"role\":\"user\",\"content\":\"page 7\"}]}";
        ResponseEntity<String> answer = WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchangeToMono(r -> r.toEntity(String.class))
                .block(Duration.ofSeconds(10));
        assertThat(answer.getStatusCode().value()).isEqualTo(400);
        JsonNode error = JsonMapper.shared().readTree(answer.getBody()).path("error");
        assertThat(error.path("code").asString()).isEqualTo("request_too_large");
        assertThat(error.path("type").asString()).isEqualTo("invalid_request_error");
        assertThat(error.path("message").asString())
                .contains("6000 output tokens")
                .contains("4850 output tokens per minute");
        assertThat(lab.stats().received()).as("never sent").isEqualTo(received);
    }

    /**
     * A stream the client leaves half way has no usage to settle by: its output stays reserved
     * whole (the provider settles to what it sent, which the gateway cannot know exactly, and
     * fewer would risk a 429), and its slot is given back at once.
     */
    @Test
    void aStreamTheClientLeavesKeepsItsOutputReservedAndGivesItsSlotBack() {
        String key = TestTenants.create(tenants, "split-leaves", "enterprise").key();
        long before = budget().usedOutputTokens();
        String body = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":" + MAX_TOKENS + ",\"stream\":true"
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"Extract the text of page 7\"}]}";
        String first = WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .retrieve()
                .bodyToFlux(String.class)
                .blockFirst(Duration.ofSeconds(10)); // then the client leaves
        assertThat(first).isNotNull();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> budget().inFlight() == 0 && lab.stats().currentInFlight() == 0);
        assertThat(budget().usedOutputTokens() - before).isEqualTo(MAX_TOKENS);
    }

    private BudgetSnapshot budget() {
        ProviderSettings provider = config.current().providers().get(0);
        return budgets.snapshot("default:*", BudgetLimits.of(provider, "gpt-4o-mini", Duration.ofMinutes(10)))
                .block(Duration.ofSeconds(5));
    }

    private JsonNode overviewBudget() {
        String json = WebClient.create("http://127.0.0.1:" + port)
                .get()
                .uri("/admin/api/overview")
                .headers(h -> h.setBasicAuth("ops", "split limits test"))
                .retrieve()
                .bodyToMono(String.class)
                .block(Duration.ofSeconds(5));
        for (JsonNode b : JsonMapper.shared().readTree(json).path("budgets")) {
            if ("default:*".equals(b.path("budget").asString())) return b;
        }
        throw new AssertionError("no budget default:* in the overview: " + json);
    }

    private CompletableFuture<ResponseEntity<String>> send(String key, boolean stream) {
        String body = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":" + MAX_TOKENS + (stream ? ",\"stream\":true" : "")
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"Extract the text of page 7\"}]}";
        return WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchangeToMono(r -> r.toEntity(String.class))
                .toFuture();
    }
}
