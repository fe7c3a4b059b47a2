package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.memory.InMemoryFlagStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** sluice.abuse.flags.open shows the store's open flags, from its registration on. */
class OpenFlagsGaugeTest {
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final InMemoryFlagStore flags = new InMemoryFlagStore();

    double gauge() {
        return meters.get("sluice.abuse.flags.open").gauge().value();
    }

    @Test
    void theGaugeExistsAtZeroAndFollowsTheStoreOnEachRefresh() {
        OpenFlagsGauge gauge = new OpenFlagsGauge(flags, meters);
        assertThat(gauge())
                .as("registered before any flag, so alerts see 0, not nothing")
                .isZero();

        Flag f = FlagStoreContract.flag("t1", FlagStoreContract.T0);
        flags.openIfNone(f).block();
        flags.openIfNone(FlagStoreContract.flag("t2", FlagStoreContract.T0)).block();
        gauge.refresh().block(Duration.ofSeconds(5));
        assertThat(gauge()).isEqualTo(2);

        flags.update(f.id(), x -> x.reviewed(FlagStoreContract.review(ReviewAction.CONFIRM_SUSPEND, "", null)))
                .block();
        gauge.refresh().block(Duration.ofSeconds(5));
        assertThat(gauge()).isEqualTo(1);
    }
}
