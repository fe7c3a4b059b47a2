package dev.sluice.gateway.spend;

import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.RedisGatewayTest;
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
            "sluice.abuse.sampler.enabled=false",
            // A database of its own (10): on database 0 a context another test cached has stored its
            // tiers document first, and this test's tiers are then unknown (403).
            "sluice.test.redis-database=10"
        })
@Import(SpendViewContract.Clocks.class)
class RedisSpendViewGatewayTest extends SpendViewContract {
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = upstreamExtension();

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) throws IOException {
        properties(registry, UPSTREAM);
    }

    @Override
    FakeUpstreamExtension upstream() {
        return UPSTREAM;
    }
}
