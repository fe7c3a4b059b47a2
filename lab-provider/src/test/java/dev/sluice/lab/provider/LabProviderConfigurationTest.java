package dev.sluice.lab.provider;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.test.web.reactive.server.WebTestClient;

/** The conditional wiring and property binding, without starting the whole gateway. */
class LabProviderConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withUserConfiguration(LabProviderConfiguration.class)
            .withPropertyValues("sluice.lab.port=0");

    @Test
    void startsTheLabWithSeedDefaultsWhenNoProviderIsConfigured() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(LabProviderServer.class);
            LabProviderServer lab = context.getBean(LabProviderServer.class);
            assertThat(lab.isRunning()).isTrue();
            assertThat(lab.baseUrl()).startsWith("http://127.0.0.1:").endsWith("/v1");
            assertThat(lab.simulator().limits()).isEqualTo(LabLimits.DEFAULTS);
        });
    }

    @Test
    void aBlankProviderUrlStillMeansTheLab() {
        runner.withPropertyValues("sluice.provider.url=  ")
                .run(context -> assertThat(context).hasSingleBean(LabProviderServer.class));
    }

    @Test
    void staysOffWhenARealProviderIsConfigured() {
        runner.withPropertyValues("sluice.provider.url=https://api.openai.com/v1")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(LabProviderServer.class);
                });
    }

    @Test
    void stopsWithTheContext() {
        LabProviderServer[] lab = new LabProviderServer[1];
        runner.run(context -> lab[0] = context.getBean(LabProviderServer.class));
        assertThat(lab[0].isRunning()).isFalse();
    }

    @Test
    void limitsBindFromProperties() {
        runner.withPropertyValues(
                        "sluice.lab.tokens-per-minute=1000",
                        "sluice.lab.latency=50ms",
                        "sluice.lab.window=10s",
                        "sluice.lab.max-in-flight=7")
                .run(context -> {
                    LabLimits limits =
                            context.getBean(LabProviderServer.class).simulator().limits();
                    assertThat(limits.tokensPerMinute()).isEqualTo(1000);
                    assertThat(limits.latency()).isEqualTo(Duration.ofMillis(50));
                    assertThat(limits.window()).isEqualTo(Duration.ofSeconds(10));
                    assertThat(limits.maxInFlight()).isEqualTo(7);
                    assertThat(limits.requestsPerMinute()).isEqualTo(1500);
                });
    }

    @Test
    void theProvidersWaysDefaultToTodaysAndBindFromProperties() {
        runner.run(context ->
                assertThat(context.getBean(LabProviderServer.class).ways()).isEqualTo(ProviderWays.DEFAULT));
        runner.withPropertyValues(
                        "sluice.lab.prompt-count=chars",
                        "sluice.lab.chars-per-token=3.5",
                        "sluice.lab.count-factor=1.15",
                        "sluice.lab.tokens-per-message=6",
                        "sluice.lab.clock-offset=-800ms",
                        "sluice.lab.extra-latency=300ms",
                        "sluice.lab.tokens-per-minute=0",
                        "sluice.lab.input-tokens-per-minute=200000",
                        "sluice.lab.output-tokens-per-minute=60000")
                .run(context -> {
                    LabProviderServer lab = context.getBean(LabProviderServer.class);
                    assertThat(lab.ways())
                            .isEqualTo(new ProviderWays(
                                    new PromptCount(PromptCount.Method.CHARS, 3.5, 1.15, 6),
                                    Duration.ofMillis(-800),
                                    Duration.ofMillis(300)));
                    assertThat(lab.simulator().limits().tokensPerMinute()).isZero();
                    assertThat(lab.simulator().limits().inputTokensPerMinute()).isEqualTo(200_000);
                    assertThat(lab.simulator().limits().outputTokensPerMinute()).isEqualTo(60_000);
                });
    }

    @Test
    void aBadWayStopsTheStartNamingIt() {
        runner.withPropertyValues("sluice.lab.count-factor=0")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("count factor must be in [0.2, 5], was 0.0"));
        runner.withPropertyValues("sluice.lab.clock-offset=5m")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("clock offset must be within"));
        runner.withPropertyValues("sluice.lab.tokens-per-minute=0")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("unless input or output tokens per minute are set"));
    }

    @Test
    void aBadLimitStopsTheStartNamingTheField() {
        runner.withPropertyValues("sluice.lab.max-in-flight=0")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("maxInFlight must be at least 1"));
    }

    @Test
    void statsAndResetOnTheGatewaysPort() {
        runner.run(context -> {
            LabProviderServer lab = context.getBean(LabProviderServer.class);
            lab.simulator().admit(10, 10, System.currentTimeMillis());
            WebTestClient client = WebTestClient.bindToRouterFunction(
                            new LabProviderConfiguration().labProviderRoutes(lab))
                    .build();

            client.get()
                    .uri("/lab/provider/stats")
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.admitted")
                    .isEqualTo(1)
                    .jsonPath("$.limits.maxInFlight")
                    .isEqualTo(200);
            client.post()
                    .uri("/lab/provider/reset")
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.admitted")
                    .isEqualTo(0);
        });
    }
}
