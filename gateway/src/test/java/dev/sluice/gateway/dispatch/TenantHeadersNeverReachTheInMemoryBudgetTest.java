package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.GatewayTest;
import org.junit.jupiter.api.AfterAll;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@GatewayTest
@Import(TenantHeadersNeverReachTheBudgetContract.Clocks.class)
class TenantHeadersNeverReachTheInMemoryBudgetTest extends TenantHeadersNeverReachTheBudgetContract {
    static final FakeUpstream UPSTREAM = upstreamWithoutHeaders();

    @AfterAll
    static void stop() {
        UPSTREAM.close();
    }

    @DynamicPropertySource
    static void stores(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }
}
