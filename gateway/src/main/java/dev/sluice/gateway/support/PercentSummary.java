package dev.sluice.gateway.support;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.util.Arrays;

/**
 * A ratio's distribution (actual over estimated), exported in percent: 100 is on target. Micrometer's
 * fixed-boundary histograms round each recorded value up to a whole number
 * ({@code TimeWindowFixedBoundaryHistogram.recordDouble}, micrometer#2422), so a summary of raw
 * ratios with buckets at 0.8 and 1.2 counts 1.05 under 2 and 0.3 under 1: its Prometheus buckets,
 * and every {@code histogram_quantile} drawn from them, were wrong. Recorded as a ratio, scaled by
 * 100 here; buckets, percentiles and sum come out in percent.
 */
public final class PercentSummary {
    private static final double PERCENT = 100;

    private PercentSummary() {}

    /** A value the summary reports (a percentile, its max) back as the ratio it was recorded as. */
    public static double ratio(double percent) {
        return percent / PERCENT;
    }

    /**
     * @param ratioBuckets the bucket bounds as ratios (1.2 is 120 %)
     * @return a summary to record ratios into ({@code record(1.05)} counts 105 %)
     */
    public static DistributionSummary register(
            MeterRegistry meters, String name, Iterable<Tag> tags, String description, double... ratioBuckets) {
        return DistributionSummary.builder(name)
                .tags(tags)
                .baseUnit("percent")
                .scale(PERCENT)
                .serviceLevelObjectives(Arrays.stream(ratioBuckets)
                        .map(r -> Math.round(r * PERCENT))
                        .toArray())
                .publishPercentiles(0.5, 0.95)
                .description(description)
                .register(meters);
    }
}
