package dev.sluice.gateway.dispatch.budget;

import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@GatewayTest
@Import(TenantHeadersNeverReachTheBudgetContract.Clocks.class)
class TenantHeadersNeverReachTheInMemoryBudgetTest extends TenantHeadersNeverReachTheBudgetContract {
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = upstreamWithoutHeaders();

    @DynamicPropertySource
    static void stores(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }
}
