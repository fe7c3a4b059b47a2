package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.SluiceApplication;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The production gateway has no simulated provider (that is the quickstart's lab-provider module), so
 * without a provider URL it refuses to start and says what to set, instead of failing every call.
 */
class GatewayNeedsAnUpstreamTest {

    @Test
    void withoutAProviderUrlTheGatewayRefusesToStartAndNamesTheSetting() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(SluiceApplication.class).run("--server.port=0"))
                .hasRootCauseInstanceOf(ConfigException.class)
                .rootCause().hasMessageContaining("SLUICE_PROVIDER_URL");
    }

    @Test
    void withAProviderUrlItStarts() {
        try (ConfigurableApplicationContext ctx = new SpringApplicationBuilder(SluiceApplication.class)
                .run("--server.port=0", "--" + FakeUpstream.NO_UPSTREAM_CALLS)) {
            assertThat(ctx.isRunning()).isTrue();
        }
    }
}
