package dev.sluice.gateway.config;

import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Fairness across replicas ({@code sluice.dispatch.fair-share.*}): with Redis, each replica's fair
 * queue shares its lanes' counters with the others' every {@code every}, and holds back a lane
 * ahead of the lowest lane waiting on another replica. Without Redis (one replica) nothing is
 * shared and no call is made.
 *
 * @param enabled whether replicas share their counters (off: fair per replica only)
 * @param every   how often a replica with lanes waiting publishes them and reads the others' (one
 *                store call per provider budget)
 * @param ttl     a replica silent this long (died, or its store calls fail) holds nobody back
 */
@ConfigurationProperties("sluice.dispatch.fair-share")
@Validated
@NotLessThan(value = "ttl", other = "every", times = 2)
public record FairShareProperties(
        @DefaultValue("true") boolean enabled,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("200ms")
        Duration every,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("1s")
        Duration ttl) {}
