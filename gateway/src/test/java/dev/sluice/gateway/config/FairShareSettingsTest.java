package dev.sluice.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code sluice.dispatch.fair-share.*}: its defaults, and refused at start with the property named. */
class FairShareSettingsTest {
    @EnableConfigurationProperties({DispatchProperties.class, FairShareProperties.class})
    static class Settings {}

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withUserConfiguration(Settings.class);

    @Test
    void nothingSetGivesTheDocumentedDefaults() {
        runner.run(context -> assertThat(context.getBean(FairShareProperties.class))
                .isEqualTo(new FairShareProperties(true, Duration.ofMillis(200), Duration.ofSeconds(1))));
    }

    @Test
    void bindsBesideTheOtherDispatchSettings() {
        runner.withPropertyValues(
                        "sluice.dispatch.fair-share.enabled=false",
                        "sluice.dispatch.fair-share.every=250ms",
                        "sluice.dispatch.queue-capacity=7")
                .run(context -> {
                    assertThat(context.getBean(FairShareProperties.class))
                            .isEqualTo(new FairShareProperties(false, Duration.ofMillis(250), Duration.ofSeconds(1)));
                    assertThat(context.getBean(DispatchProperties.class).queueCapacity())
                            .isEqualTo(7);
                });
    }

    @Test
    void refusesNonPositiveIntervalsAndATtlShorterThanTwoTicks() {
        failsNaming("sluice.dispatch.fair-share.every", "sluice.dispatch.fair-share.every=0s");
        failsNaming("sluice.dispatch.fair-share.ttl", "sluice.dispatch.fair-share.ttl=-1s");
        failsNaming("sluice.dispatch.fair-share.ttl", "sluice.dispatch.fair-share.ttl=300ms");
        failsNaming(
                "sluice.dispatch.fair-share.ttl must be at least 2 times every (200ms), was 300ms",
                "sluice.dispatch.fair-share.ttl=300ms");
        failsNaming("sluice.dispatch.fair-share.enabled", "sluice.dispatch.fair-share.enabled=perhaps");
    }

    private void failsNaming(String property, String setting) {
        runner.withPropertyValues(setting).run(context -> {
            assertThat(context).hasFailed();
            assertThat(SettingsValidationTest.messages(context.getStartupFailure()))
                    .contains(property);
        });
    }
}
