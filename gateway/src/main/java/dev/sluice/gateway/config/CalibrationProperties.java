package dev.sluice.gateway.config;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

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
public record CalibrationProperties(@DefaultValue("1.25") double defaultRatio,
                                    @DefaultValue("0.5") double minRatio,
                                    @DefaultValue("2.0") double maxRatio,
                                    @DefaultValue("20") int fastSamples,
                                    @DefaultValue("0.1") double smoothing,
                                    @DefaultValue("5s") Duration syncEvery,
                                    @DefaultValue("10m") Duration maxAge) {
    public CalibrationProperties {
        // Negated comparisons, so that NaN fails too.
        if (!(minRatio > 0 && maxRatio >= minRatio && Double.isFinite(maxRatio))) {
            throw new IllegalArgumentException("sluice.calibration.min-ratio and max-ratio must satisfy 0 < min <= max, were "
                    + minRatio + " and " + maxRatio);
        }
        if (!(defaultRatio >= minRatio && defaultRatio <= maxRatio)) {
            throw new IllegalArgumentException("sluice.calibration.default-ratio must be within [min-ratio, max-ratio], was "
                    + defaultRatio);
        }
        Checks.atLeast("sluice.calibration.fast-samples", fastSamples, 1);
        if (!(smoothing > 0 && smoothing <= 1)) {
            throw new IllegalArgumentException("sluice.calibration.smoothing must be in (0, 1], was " + smoothing);
        }
        Checks.positive("sluice.calibration.sync-every", syncEvery);
        Checks.positive("sluice.calibration.max-age", maxAge);
        if (maxAge.compareTo(syncEvery) <= 0) {
            throw new IllegalArgumentException("sluice.calibration.max-age must be longer than sync-every");
        }
    }
}
