package dev.sluice.gateway.dispatch.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.config.ConfigException;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.GatewayReplica;
import org.junit.jupiter.api.Test;

/**
 * The production gateway has no simulated provider (that is the quickstart's lab-provider module), so
 * without a provider URL it refuses to start and says what to set, instead of failing every call.
 */
class GatewayNeedsAnUpstreamTest {

    @Test
    void withoutAProviderUrlTheGatewayRefusesToStartAndNamesTheSetting() {
        assertThatThrownBy(() -> GatewayReplica.builder().start())
                .hasRootCauseInstanceOf(ConfigException.class)
                .rootCause()
                .hasMessageContaining("SLUICE_PROVIDER_URL");
    }

    @Test
    void withAProviderUrlItStarts() {
        try (GatewayReplica gateway = GatewayReplica.builder()
                .properties(FakeUpstream.NO_UPSTREAM_CALLS)
                .start()) {
            assertThat(gateway.context().isRunning()).isTrue();
        }
    }
}
