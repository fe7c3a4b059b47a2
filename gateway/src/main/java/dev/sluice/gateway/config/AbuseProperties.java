package dev.sluice.gateway.config;

import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The abuse detector's timing ({@code sluice.abuse.*}); its thresholds are per tier, in tiers.yaml.
 *
 * @param sampler             the per-minute sampler that opens flags
 * @param settle              how long after a minute ends before it is sampled, so every replica has
 *                            shipped that minute's activity
 * @param tick                how often the sampler looks for a minute to sample
 * @param shipInterval        how often a replica ships its recorded activity to Redis
 * @param openFlagsInterval   how often the open-flags gauge is refreshed from the store
 * @param closedFlagRetention how long a closed flag is kept in Redis before it expires
 */
@ConfigurationProperties("sluice.abuse")
@Validated
public record AbuseProperties(
        @DefaultValue Sampler sampler,
        @DurationMin(nanos = 0) @DefaultValue("2s") Duration settle,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("1s")
        Duration tick,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("1s")
        Duration shipInterval,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("30s")
        Duration openFlagsInterval,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("90d")
        Duration closedFlagRetention) {
    public AbuseProperties {
        sampler = sampler == null ? new Sampler(true) : sampler;
    }

    /** @param enabled whether this replica runs the sampler at all (tests that open flags by hand turn it off) */
    public record Sampler(@DefaultValue("true") boolean enabled) {}
}
