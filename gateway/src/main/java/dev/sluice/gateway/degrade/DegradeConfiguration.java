package dev.sluice.gateway.degrade;

import dev.sluice.gateway.abuse.TenantActivity;
import dev.sluice.gateway.api.StageCounter;
import dev.sluice.gateway.estimate.RequestRewriter;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.QuotaRefusals;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The ladder stage, after the quota's answer: a jittered delay, a downgrade, or the 429. */
@Configuration(proxyBeanMethods = false)
public class DegradeConfiguration {
    @Bean
    LadderFilter ladderFilter(
            QuotaLimiter limiter,
            QuotaRefusals refusals,
            RequestRewriter rewriter,
            StageCounter stages,
            TenantActivity activity,
            MeterRegistry meters) {
        return new LadderFilter(new DegradationLadder(), limiter, refusals, rewriter, stages, activity, meters);
    }
}
