package dev.sluice.gateway.objects;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.objects.redis.RedisObjectOwnership;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.RedisGatewayTest;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import dev.sluice.gateway.testsupport.TestTenants;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;

/** With Redis configured, owners live in Redis (one key per object, with its TTL), where every replica reads them. */
@RedisGatewayTest
class RedisObjectOwnershipGatewayTest {
    static final String RESPONSE = "resp_" + UUID.randomUUID();

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM =
            FakeUpstreamExtension.answering("{\"id\":\"" + RESPONSE + "\",\"object\":\"response\",\"output\":[],"
                    + "\"usage\":{\"input_tokens\":5,\"output_tokens\":1,\"total_tokens\":6}}");

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    ObjectOwnership ownership;

    int status(String method, String path, String key, String body) {
        WebClient.RequestBodySpec spec = WebClient.create("http://127.0.0.1:" + port)
                .method(HttpMethod.valueOf(method))
                .uri(path)
                .header("Authorization", "Bearer " + key);
        return (body == null
                        ? spec
                        : spec.contentType(MediaType.APPLICATION_JSON).bodyValue(body))
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value()))
                .block(Duration.ofSeconds(30));
    }

    @Test
    void aCreatedObjectsOwnerIsRecordedInRedis() {
        TestTenants.Created a = TestTenants.create(tenants, "redis-owner", "pro");
        TestTenants.Created b = TestTenants.create(tenants, "redis-other", "pro");
        assertThat(ownership).isInstanceOf(RedisObjectOwnership.class);

        assertThat(status("POST", "/v1/responses", a.key(), "{\"model\":\"gpt-4o\",\"input\":\"hi\"}"))
                .isEqualTo(200);

        assertThat(TestRedisTemplates.template()
                        .getExpire("sluice:o:{" + RESPONSE + "}")
                        .block(Duration.ofSeconds(5)))
                .isGreaterThan(Duration.ofDays(399));
        assertThat(status("GET", "/v1/responses/" + RESPONSE, b.key(), null)).isEqualTo(404);
        assertThat(status("GET", "/v1/responses/" + RESPONSE, a.key(), null)).isEqualTo(200);
    }
}
