package dev.sluice.gateway.estimate;

import dev.sluice.gateway.config.SluiceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The estimate stage: the body read once, prompt tokens counted, max_tokens added. */
@Configuration(proxyBeanMethods = false)
public class EstimateConfiguration {
    @Bean
    TokenEstimator tokenEstimator() {
        return new TokenEstimator();
    }

    @Bean
    RequestRewriter requestRewriter() {
        return new RequestRewriter();
    }

    @Bean
    EstimateFilter estimateFilter(TokenEstimator estimator, RequestRewriter rewriter, SluiceProperties props) {
        return new EstimateFilter(
                estimator, rewriter, Math.toIntExact(props.maxRequestBytes().toBytes()));
    }
}
