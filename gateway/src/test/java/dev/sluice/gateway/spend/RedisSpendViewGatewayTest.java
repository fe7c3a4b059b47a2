package dev.sluice.gateway.spend;

import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.RedisGatewayTest;
import dev.sluice.gateway.testsupport.TestRedis;
import java.io.IOException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link SpendViewContract} on Redis: the ledger rows go from the settle stage to the replica's buffer, to Redis on the background flush, and back. */
@RedisGatewayTest(
        properties = {
            "sluice.admin.user=ops",
            "sluice.admin.password=spend view test",
            "sluice.abuse.sampler.enabled=false"
        })
@Import(SpendViewContract.Clocks.class)
class RedisSpendViewGatewayTest extends SpendViewContract {
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = upstreamExtension();

    /**
     * A database of its own: its own tiers document. On database 0 a context cached by another test
     * may have stored its tiers there first, and this test's tier is then unknown (403).
     */
    static final int DATABASE = 10;

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) throws IOException {
        properties(registry, UPSTREAM);
        registry.add("spring.data.redis.url", () -> TestRedis.url(DATABASE));
    }

    @Override
    FakeUpstreamExtension upstream() {
        return UPSTREAM;
    }
}
