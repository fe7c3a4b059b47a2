package dev.sluice.gateway.hostile;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.estimate.TokenEstimator;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.HonestUpstream;
import dev.sluice.gateway.testsupport.TestTenants;
import java.nio.charset.StandardCharsets;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The hostile-tenant suite's gateway: the real application over real HTTP, in front of one
 * {@link HonestUpstream} shared by the suite's classes (and so one cached context), with what
 * they read of it: the tenants, a tenant's minute window, the estimator.
 */
@GatewayTest
abstract class HonestGatewayTest {
    static final HonestUpstream UPSTREAM = HonestUpstream.start();

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    QuotaLimiter limiter;

    @Autowired
    ConfigRegistry config;

    @Autowired
    TokenEstimator estimator;

    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    /** Tokens in {@code tenant}'s minute window of {@code tier} now. */
    long used(TestTenants.Created tenant, String tier) {
        return limiter.peek(tenant.id(), config.current().tier(tier).orElseThrow())
                .block()
                .get(0)
                .usedTokens();
    }

    long defaultCap(String tier) {
        return config.current().tier(tier).orElseThrow().defaultMaxTokens();
    }

    /** The gateway's count of {@code body}'s prompt at {@code path}. */
    long promptOf(String path, String body) {
        return estimator
                .estimate(path, body.getBytes(StandardCharsets.UTF_8), 1)
                .promptTokens();
    }
}
