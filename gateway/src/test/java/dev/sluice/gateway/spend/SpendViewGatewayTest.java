package dev.sluice.gateway.spend;

import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import java.io.IOException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link SpendViewContract} in memory. */
@GatewayTest(
        properties = {
            "sluice.admin.user=ops",
            "sluice.admin.password=spend view test",
            "sluice.abuse.sampler.enabled=false"
        })
@Import(SpendViewContract.Clocks.class)
class SpendViewGatewayTest extends SpendViewContract {
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
