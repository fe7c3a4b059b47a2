package dev.sluice.gateway.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

class PercentSummaryTest {
    private final PrometheusMeterRegistry prometheus =
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, new PrometheusRegistry(), new MockClock());

    /**
     * A raw ratio summary put 1.05 under 2 and 0.3 under 1 (Micrometer rounds each value up for its
     * buckets): every bucket between two whole numbers read wrong.
     */
    @Test
    void eachRatioIsCountedInItsOwnBucketAsScraped() {
        DistributionSummary s = PercentSummary.register(prometheus, "x.of.y", Tags.of("k", "v"), "", 0.8, 1.0, 1.2);
        for (double r : new double[] {0.3, 0.85, 1.05, 1.05, 1.19, 1.5}) s.record(r);

        String scrape = prometheus.scrape();
        assertThat(scrape)
                .contains("x_of_y_percent_bucket{k=\"v\",le=\"80.0\"} 1")
                .contains("x_of_y_percent_bucket{k=\"v\",le=\"100.0\"} 2")
                .contains("x_of_y_percent_bucket{k=\"v\",le=\"120.0\"} 5")
                .contains("x_of_y_percent_count{k=\"v\"} 6");
        assertThat(s.totalAmount())
                .as("the sum, in percent")
                .isCloseTo(594.0, org.assertj.core.data.Offset.offset(1e-6));
    }

    @Test
    void itsPercentilesAreInPercentToo() {
        DistributionSummary s = PercentSummary.register(prometheus, "x.of.y", Tags.empty(), "", 1.0);
        for (int i = 0; i < 100; i++) s.record(1.1);

        assertThat(s.takeSnapshot().percentileValues()[0].value()).isBetween(105.0, 115.0);
    }
}
