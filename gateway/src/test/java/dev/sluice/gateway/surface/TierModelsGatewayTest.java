package dev.sluice.gateway.surface;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.WindowUsage;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.testsupport.TestTiers;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A tier's models and its per-model windows, through the whole gateway over real HTTP: a model
 * the tier does not list is 403 before anything is charged, /v1/models shows only the tier's,
 * and a model's window refuses with its Retry-After while another model still passes.
 */
@GatewayTest
class TierModelsGatewayTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Every call answered with 250 tokens of usage, which the settlement then charges. */
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering(
                    "{\"id\":\"c1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
                            + "\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}],"
                            + "\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":200,\"total_tokens\":250}}")
            .clearedBeforeEachTest();

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) throws IOException {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
        String tiers = TestTiers.written("tier-models/tiers.yaml", """
                tiers:
                  limited:
                    tokens-per-minute: 100000
                    requests-per-minute: 600
                    priority: 2
                    models: [gpt-4o-mini, gpt-4o]
                    model-limits:
                      gpt-4o: {tokens-per-minute: 300}
                  open:
                    tokens-per-minute: 100000
                    requests-per-minute: 600
                    priority: 2
                providers:
                  - name: default
                    models:
                      "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 200}
                """);
        registry.add("sluice.tiers.path", () -> tiers);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    QuotaLimiter limiter;

    @Autowired
    ConfigRegistry config;

    TestTenants.Created limited;

    @BeforeEach
    void tenant() {
        limited = TestTenants.create(tenants, "models", "limited");
    }

    record Answer(int status, HttpHeaders headers, String body) {
        JsonNode json() {
            return JSON.readTree(body);
        }
    }

    Answer call(String method, String path, TestTenants.Created who, String json) {
        WebClient client =
                WebClient.builder().baseUrl("http://127.0.0.1:" + port).build();
        WebClient.RequestBodySpec spec = client.method(org.springframework.http.HttpMethod.valueOf(method))
                .uri(path)
                .header("Authorization", "Bearer " + who.key());
        WebClient.RequestHeadersSpec<?> ready = json == null
                ? spec
                : spec.contentType(MediaType.APPLICATION_JSON).bodyValue(json);
        return ready.exchangeToMono(r -> r.bodyToMono(String.class)
                        .defaultIfEmpty("")
                        .map(body ->
                                new Answer(r.statusCode().value(), r.headers().asHttpHeaders(), body)))
                .block(Duration.ofSeconds(30));
    }

    static String chat(String model, int maxTokens) {
        return "{\"model\":\"" + model + "\",\"max_tokens\":" + maxTokens
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    }

    List<WindowUsage> windows(String model) {
        return limiter.peek(limited.id(), config.current().tier("limited").orElseThrow(), model)
                .block(Duration.ofSeconds(5));
    }

    /** Tokens and requests used in each of the tenant's windows (and gpt-4o's). */
    List<Long> used() {
        List<Long> out = new ArrayList<>();
        for (WindowUsage w : windows("gpt-4o")) {
            out.add(w.usedTokens());
            out.add(w.usedRequests());
        }
        return out;
    }

    /** {@link #used()} once the minute holds {@code tokens}: the served call's settlement (batched) has landed. */
    List<Long> settled(long tokens) {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(windows("gpt-4o").get(0).usedTokens())
                        .as("settled to the usage")
                        .isEqualTo(tokens));
        return used();
    }

    @Test
    void aModelTheTierDoesNotListIs403BeforeAnythingIsCharged() {
        assertThat(call("POST", "/v1/chat/completions", limited, chat("gpt-4o-mini", 20))
                        .status())
                .isEqualTo(200);
        List<Long> before = settled(250);

        Answer refused = call("POST", "/v1/chat/completions", limited, chat("gpt-4.1", 20));

        assertThat(refused.status()).as(refused.body()).isEqualTo(403);
        JsonNode error = refused.json().get("error");
        assertThat(error.get("code").asString()).isEqualTo("model_not_allowed");
        assertThat(error.get("type").asString()).isEqualTo("invalid_request_error");
        assertThat(error.get("param").asString()).isEqualTo("model");
        assertThat(error.get("message").asString())
                .contains("'gpt-4.1'")
                .contains("tier 'limited'")
                .contains("gpt-4o-mini, gpt-4o");
        assertThat(used()).as("the tenant's windows, unchanged").isEqualTo(before);
        assertThat(UPSTREAM.requests())
                .as("only the allowed call reached the provider")
                .hasSize(1)
                .allSatisfy(r -> assertThat(r.body()).contains("gpt-4o-mini"));
    }

    @Test
    void modelsListsOnlyTheModelsTheTierMayUse() {
        Answer list = call("GET", "/v1/models", limited, null);
        assertThat(list.status()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        list.json().get("data").forEach(m -> ids.add(m.get("id").asString()));
        assertThat(ids).containsExactly("gpt-4o", "gpt-4o-mini");

        assertThat(call("GET", "/v1/models/gpt-4o", limited, null).status()).isEqualTo(200);
        assertThat(call("GET", "/v1/models/gpt-4.1", limited, null).status()).isEqualTo(404);

        TestTenants.Created open = TestTenants.create(tenants, "models-open", "open");
        Answer all = call("GET", "/v1/models", open, null);
        assertThat(all.status()).isEqualTo(200);
        assertThat(all.json().get("data").size())
                .as("a tier without a list sees the whole catalog (here: no model named anywhere)")
                .isZero();
    }

    @Test
    void aModelsWindowRefusesWithItsRetryAfterWhileAnotherModelStillPasses() {
        // 300 tokens a minute for gpt-4o: the first call's estimate (about 210) fits, a second does not.
        Answer first = call("POST", "/v1/chat/completions", limited, chat("gpt-4o", 200));
        assertThat(first.status()).as(first.body()).isEqualTo(200);
        assertThat(first.headers().getFirst("RateLimit-Policy")).contains("\"model:gpt-4o-tokens\";q=300;w=60");

        Answer refused = call("POST", "/v1/chat/completions", limited, chat("gpt-4o", 200));

        assertThat(refused.status()).as(refused.body()).isEqualTo(429);
        assertThat(refused.json().get("error").get("code").asString()).isEqualTo("rate_limit_exceeded");
        assertThat(refused.json().get("error").get("message").asString())
                .contains("tier 'limited'")
                .contains("its window for model 'gpt-4o' (model-limits, 60 s)")
                .contains("limit 300 tokens");
        long ms = Long.parseLong(refused.headers().getFirst("retry-after-ms"));
        assertThat(ms)
                .as("until the first call's tokens leave the model's minute")
                .isBetween(50_000L, 61_000L);
        assertThat(refused.headers().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo(Long.toString((ms + 999) / 1000));

        Answer other = call("POST", "/v1/chat/completions", limited, chat("gpt-4o-mini", 200));
        assertThat(other.status())
                .as("gpt-4o-mini has no window of its own: " + other.body())
                .isEqualTo(200);
        assertThat(windows("gpt-4o-mini").get(0).usedRequests())
                .as("the tenant's minute holds both calls served, not the refused one")
                .isEqualTo(2);
    }
}
