package dev.sluice.bench;

import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Profile;
import org.springframework.http.HttpHeaders;
import reactor.core.publisher.Mono;

/**
 * The two Spring Cloud Gateway arms, each in its own JVM: a plain Spring Boot app with one route
 * to the fake provider, configured the way users configure it ({@code scg-arm.yml}). With the
 * {@code rate-limited} profile the route carries SCG's own {@code RequestRateLimiter} with its
 * {@code RedisRateLimiter}, keyed by the caller's Authorization header, at a rate that never refuses
 * ({@code scg-arm-rate-limited.yml}): the cost of the limiter, not its refusals.
 */
@SpringBootApplication
public class ScgArm {
    /** Usage: {@code ScgArm --server.port=… --bench.upstream=http://127.0.0.1:… [--spring.profiles.active=rate-limited]}. */
    public static void main(String[] args) {
        SpringApplication app = new SpringApplication(ScgArm.class);
        app.setDefaultProperties(Map.of("spring.config.name", "scg-arm"));
        app.run(args);
    }

    /** One bucket per API key, as a gateway in front of an LLM API would key it. */
    @Bean
    @Profile("rate-limited")
    KeyResolver apiKeyResolver() {
        return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst(HttpHeaders.AUTHORIZATION));
    }
}
