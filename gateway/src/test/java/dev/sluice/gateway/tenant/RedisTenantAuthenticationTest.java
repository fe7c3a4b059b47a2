package dev.sluice.gateway.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.RedisGatewayTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/** The gateway with Redis configured: tenants live there, keys only as hashes. */
@RedisGatewayTest(properties = "sluice.demo.tenants=true")
class RedisTenantAuthenticationTest {
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering("{\"ok\":true}");

    @DynamicPropertySource
    static void props(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore store;

    @Autowired
    ReactiveStringRedisTemplate redis;

    int status(String key) {
        return WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchangeToMono(r -> Mono.just(r.statusCode().value()))
                .block(Duration.ofSeconds(10));
    }

    @Test
    void tenantsAreReadFromRedis() {
        assertThat(store.getClass().getSimpleName()).isEqualTo("RedisTenantStore");
        assertThat(status("sk-sluice-demo-pro")).isEqualTo(200);
        assertThat(status("sk-sluice-demo-suspended")).isEqualTo(403);
        assertThat(status("sk-not-a-key")).isEqualTo(401);
    }

    @Test
    void aKeyAddedThroughTheStoreWorksAndARevokedOneStops() {
        String key = ApiKeys.generate();
        store.save(new Tenant("acme", "free", false))
                .then(store.addKey("acme", ApiKeys.sha256Hex(key)))
                .block();
        assertThat(status(key)).isEqualTo(200);
        assertThat(store.revokeKey(ApiKeys.sha256Hex(key)).block()).isTrue();
        assertThat(status(key)).isEqualTo(401);
    }

    @Test
    void noKeyIsStoredInClear() {
        String everything = redis.scan()
                .flatMap(k -> redis.type(k).flatMap(t -> switch (t.code()) {
                    case "string" -> redis.opsForValue().get(k).map(v -> k + "=" + v);
                    case "hash" ->
                        redis.opsForHash()
                                .entries(k)
                                .map(Object::toString)
                                .collectList()
                                .map(v -> k + "=" + v);
                    case "set" -> redis.opsForSet().members(k).collectList().map(v -> k + "=" + v);
                    default -> Mono.just(k);
                }))
                .collectList()
                .map(Object::toString)
                .block(Duration.ofSeconds(10));
        assertThat(everything).contains(ApiKeys.sha256Hex("sk-sluice-demo-pro")).doesNotContain("sk-sluice-demo");
    }
}
