package dev.sluice.gateway.shadow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.QuotaStore;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The draft's charge follows the live one whatever order the three events come in. */
class ShadowChargeTest {
    static final SluiceConfig CONFIG = TiersYamlParser.parse("t", """
            tiers:
              free: {tokens-per-minute: 10000, requests-per-minute: 100, priority: 2}
            providers:
              - name: default
                models:
                  "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 50}
            """);
    final FakeClock clock = new FakeClock(1_900_000_000_000L);
    final QuotaStore store = new InMemoryQuotaStore(clock);
    final QuotaLimiter limiter = new QuotaLimiter(store, null, Duration.ofSeconds(1), new SimpleMeterRegistry());
    final Tier free = CONFIG.tier("free").orElseThrow();
    final List<String> reported = new ArrayList<>();

    ShadowEvaluator.Verdict admitted(long tokens) {
        QuotaLimiter.Outcome o = limiter.acquire("shadow~1~t", free, tokens).block();
        return new ShadowEvaluator.Verdict(Stage.PASSED, o.reservation());
    }

    long used() {
        List<WindowLimit> w = free.windows();
        return store.peek("shadow~1~t", w).block().get(0).usedTokens();
    }

    ShadowCharge charge() {
        return new ShadowCharge((l, d) -> reported.add(l.label() + "/" + d.label()));
    }

    @Test
    void settledAfterTheVerdictOrBeforeItTheDraftPaysTheLiveUsage() {
        ShadowCharge first = charge();
        first.drafted(admitted(1_000));
        first.settled(300, 0);
        assertThat(used()).isEqualTo(300);
        ShadowCharge second = charge();
        second.settled(200, 0);
        second.drafted(admitted(1_000));
        assertThat(used()).isEqualTo(500);
    }

    @Test
    void aLiveRefundGivesTheDraftsChargeBackAndALiveRefusalKeepsItsEstimate() {
        ShadowCharge refunded = charge();
        refunded.drafted(admitted(1_000));
        refunded.refunded();
        assertThat(used()).isZero();
        ShadowCharge refusedLive = charge();
        refusedLive.drafted(admitted(700));
        refusedLive.lived(Stage.REJECTED); // no settlement comes: under the draft it would have been served
        assertThat(used()).isEqualTo(700);
    }

    @Test
    void theOutcomesAreReportedOnceWhenBothAreKnownInEitherOrder() {
        ShadowCharge a = charge();
        a.lived(Stage.PASSED);
        assertThat(reported).isEmpty();
        a.drafted(ShadowEvaluator.Verdict.of(Stage.REJECTED));
        a.drafted(ShadowEvaluator.Verdict.of(Stage.PASSED));
        a.lived(Stage.REJECTED);
        ShadowCharge b = charge();
        b.drafted(ShadowEvaluator.Verdict.of(Stage.DELAYED));
        b.lived(Stage.DOWNGRADED);
        ShadowCharge unknown = charge();
        unknown.drafted(ShadowEvaluator.UNKNOWN);
        unknown.lived(Stage.PASSED);
        assertThat(reported).containsExactly("passed/rejected", "downgraded/delayed");
    }

    @Test
    void aSecondSettlementChangesNothing() {
        ShadowCharge c = charge();
        c.drafted(admitted(1_000));
        c.settled(100, 0);
        c.settled(900, 0);
        c.refunded();
        assertThat(used()).isEqualTo(100);
    }
}
