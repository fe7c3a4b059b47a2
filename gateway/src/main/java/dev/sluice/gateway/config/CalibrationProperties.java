package dev.sluice.gateway.config;

import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Positive;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How the gateway learns the provider's own token count ({@code sluice.calibration.*}): the ratio
 * of the prompt tokens each answer reports to Sluice's estimate, per provider budget, by which
 * the provider budget is charged. The tenant quota does not use it.
 *
 * @param defaultRatio the ratio until the first answer: conservative, 1.25, so that the calls sent
 *                     before any answer stay within the provider's limit from a provider that
 *                     counts up to a quarter more than the estimator (each is settled to its usage)
 * @param minRatio     the lowest ratio ever charged
 * @param maxRatio     the highest ratio ever charged
 * @param fastSamples  answers averaged plainly at the start, before the moving average takes over
 * @param smoothing    the moving average's weight of each later answer, in (0, 1]
 * @param syncEvery    how often a replica shares its ratio with the others through the store (one
 *                     call per budget) and reads theirs
 * @param maxAge       a replica silent this long (gone, restarted) no longer counts
 */
@ConfigurationProperties("sluice.calibration")
@Validated
@NotLessThan(value = "maxRatio", other = "minRatio")
@NotLessThan(value = "defaultRatio", other = "minRatio")
@NotLessThan(value = "maxRatio", other = "defaultRatio")
@NotLessThan(value = "maxAge", other = "syncEvery", strictly = true)
public record CalibrationProperties(
        @Positive /* NaN too */ @DefaultValue("1.25") double defaultRatio,
        @Positive @DefaultValue("0.5") double minRatio,

        @Max(Long.MAX_VALUE) /* finite */ @DefaultValue("2.0")
        double maxRatio,

        @Min(1) @DefaultValue("20") int fastSamples,

        @DecimalMin(value = "0", inclusive = false) @DecimalMax("1") @DefaultValue("0.1")
        double smoothing,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("5s")
        Duration syncEvery,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("10m")
        Duration maxAge) {}
