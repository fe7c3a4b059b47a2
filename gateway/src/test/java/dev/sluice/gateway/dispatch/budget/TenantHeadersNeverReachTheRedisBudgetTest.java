package dev.sluice.gateway.dispatch.budget;

import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import dev.sluice.gateway.testsupport.ClockedRedisQuotaStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.RedisGatewayTest;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@RedisGatewayTest
@Import({
    TenantHeadersNeverReachTheBudgetContract.Clocks.class,
    TenantHeadersNeverReachTheRedisBudgetTest.RedisOnTheFakeClock.class
})
class TenantHeadersNeverReachTheRedisBudgetTest extends TenantHeadersNeverReachTheBudgetContract {
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = upstreamWithoutHeaders();

    /** The gateway's Redis quota runs on Redis TIME; this one on the test's clock, so the hold can be timed. */
    @TestConfiguration
    static class RedisOnTheFakeClock {
        @Bean
        @Primary
        QuotaLimiter quotaOnTheFakeClock(ReactiveStringRedisTemplate redis, MeterRegistry meters) {
            return new QuotaLimiter(
                    new ClockedRedisQuotaStore(redis, CLOCK::millis),
                    new InMemoryQuotaStore(CLOCK),
                    Duration.ofSeconds(2),
                    meters);
        }
    }

    @DynamicPropertySource
    static void stores(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }
}
