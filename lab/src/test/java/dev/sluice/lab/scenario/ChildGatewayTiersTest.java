package dev.sluice.lab.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.ModelLimits;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.lab.provider.LabLimits;
import org.junit.jupiter.api.Test;

/** Case 4's tiers document parses, and only the provider's budget can bind in it. */
class ChildGatewayTiersTest {

    @Test
    void eachRunHasTheSeedsBudgetOfItsOwnAndTheTenantsNeverBind() {
        SluiceConfig config =
                TiersYamlParser.parse("lab", ChildGateway.tiersYaml("http://127.0.0.1:1/v1", LabLimits.DEFAULTS, 0.97));
        ProviderSettings provider = config.providers().get(0);
        assertThat(provider.baseUrl()).isEqualTo("http://127.0.0.1:1/v1");
        assertThat(provider.headroom()).isEqualTo(0.97);
        for (String model : new String[] {"*", ChildGateway.model(1), ChildGateway.model(2)}) {
            ModelLimits m = provider.limitsFor(model);
            assertThat(m.requestsPerMinute()).as(model).isEqualTo(1500);
            assertThat(m.tokensPerMinute()).as(model).isEqualTo(300_000);
            assertThat(m.maxInFlight()).as(model).isEqualTo(200);
        }
        assertThat(provider.limitsFor(ChildGateway.WARM_UP_MODEL).tokensPerMinute())
                .isGreaterThan(1_000_000_000L);
        assertThat(config.tiers().get(ChildGateway.TIER).tokensPerMinute()).isGreaterThanOrEqualTo(1000 * 300_000L);
        assertThat(ChildGateway.model(2)).startsWith("gpt-4o-mini"); // the same tokenizer as the seed's pages
    }
}
