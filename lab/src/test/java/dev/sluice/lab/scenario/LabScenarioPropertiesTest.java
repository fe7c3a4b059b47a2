package dev.sluice.lab.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/** The lab's run options are a validated record: a bad one stops the start, naming the property. */
class LabScenarioPropertiesTest {
    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(LabScenarioProperties.class)
    static class Bound {}

    final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Bound.class);

    @Test
    void noOptionsAreTheDefaults() {
        runner.run(ctx ->
                assertThat(ctx.getBean(LabScenarioProperties.class).settings()).isEqualTo(ScenarioSettings.defaults()));
    }

    @Test
    void optionsAreTheCommandsOptions() {
        runner.withPropertyValues("sluice.lab.scenario.options=--time-factor=10 --pages=20")
                .run(ctx -> assertThat(ctx.getBean(LabScenarioProperties.class).settings())
                        .isEqualTo(ScenarioSettings.defaults().with(List.of("--time-factor=10", "--pages=20"))));
    }

    @Test
    void aBadOptionStopsTheStartNamingTheProperty() {
        runner.withPropertyValues("sluice.lab.scenario.options=--time-factor=0")
                .run(ctx -> assertThat(ctx)
                        .hasFailed()
                        .getFailure()
                        .hasStackTraceContaining(
                                "sluice.lab.scenario.options: time factor must be between 1 and 100, was 0.0"));
    }
}
