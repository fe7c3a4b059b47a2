package dev.sluice.gateway.usage;

import dev.sluice.gateway.accuracy.EnforcementAccuracy;
import dev.sluice.gateway.api.PendingWork;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.estimate.TokenEstimator;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The settle stage: the reservation settled once from the provider's reported usage, and spend priced. */
@Configuration(proxyBeanMethods = false)
public class UsageConfiguration {
    @Bean
    SettleFilter settleFilter(
            TokenEstimator estimator,
            MeterRegistry meters,
            PendingWork pending,
            ConfigRegistry config,
            EnforcementAccuracy accuracy) {
        SettleFilter filter = new SettleFilter(estimator, meters, pending, accuracy);
        filter.registerMeters(config.current().tiers().keySet());
        return filter;
    }
}
