package dev.sluice.gateway.degrade;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.config.EndpointAccess;
import dev.sluice.gateway.config.LadderSettings;
import dev.sluice.gateway.config.RedisDownPolicy;
import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.TierModels;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.WindowUsage;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DegradationLadderTest {
    static final LadderSettings LADDER = new LadderSettings(0.80, 200, 800, 2000, 10);
    final DegradationLadder ladder = new DegradationLadder(new SplittableRandom(7));

    static Tier tier(boolean allowNoDowngrade) {
        return new Tier(
                "pro",
                1000,
                100,
                1.0,
                2,
                100,
                List.of(new WindowLimit("hour", 3600, 60_000, 6000)),
                Map.of("gpt-4o", "gpt-4o-mini"),
                allowNoDowngrade,
                RedisDownPolicy.FAIL_OPEN,
                EndpointAccess.DEFAULT,
                TierModels.ALL,
                SpendBudget.NONE);
    }

    static QuotaDecision admittedAt(long usedTokens) {
        return new QuotaDecision(
                true, 0, 0, null, List.of(new WindowUsage("minute", 60, 1000, 100, usedTokens, 1, 1000)));
    }

    static QuotaDecision refused(long retryAfterMs) {
        return new QuotaDecision(
                false, 0, retryAfterMs, "minute", List.of(new WindowUsage("minute", 60, 1000, 100, 990, 1, 1000)));
    }

    @Test
    void passesBelowTheThreshold() {
        assertThat(ladder.decide(admittedAt(800), tier(true), LADDER, "gpt-4o", false, true))
                .isEqualTo(LadderDecision.pass("gpt-4o"));
    }

    @Test
    void downgradesAboveTheThresholdThroughTheTiersMap() {
        LadderDecision d = ladder.decide(admittedAt(801), tier(true), LADDER, "gpt-4o", false, true);
        assertThat(d.stage()).isEqualTo(Stage.DOWNGRADED);
        assertThat(d.model()).isEqualTo("gpt-4o-mini");
    }

    @Test
    void aModelTheMapDoesNotNameIsPassedAsItIs() {
        assertThat(ladder.decide(admittedAt(990), tier(true), LADDER, "o3", false, true)
                        .stage())
                .isEqualTo(Stage.PASSED);
    }

    @Test
    void aCriticalRequestKeepsItsModelOnlyWhereTheTierAllowsIt() {
        assertThat(ladder.decide(admittedAt(990), tier(true), LADDER, "gpt-4o", true, true)
                        .stage())
                .isEqualTo(Stage.PASSED);
        assertThat(ladder.decide(admittedAt(990), tier(false), LADDER, "gpt-4o", true, true)
                        .stage())
                .isEqualTo(Stage.DOWNGRADED);
    }

    @Test
    void aRequestThatFitsSoonIsHeldForAJitteredDelayNeverShorterThanItNeeds() {
        for (int i = 0; i < 200; i++) {
            LadderDecision d = ladder.decide(refused(300), tier(true), LADDER, "gpt-4o", false, true);
            assertThat(d.stage()).isEqualTo(Stage.DELAYED);
            assertThat(d.delayMs()).isBetween(300L, 800L);
        }
        assertThat(ladder.decide(refused(1500), tier(true), LADDER, "gpt-4o", false, true)
                        .delayMs())
                .isEqualTo(1500);
    }

    @Test
    void theJitterSpreadsOverTheWholeRange() {
        var delays = IntStream.range(0, 500)
                .mapToLong(i -> ladder.decide(refused(1), tier(true), LADDER, "m", false, true)
                        .delayMs())
                .summaryStatistics();
        assertThat(delays.getMin()).isLessThan(260);
        assertThat(delays.getMax()).isGreaterThan(740);
    }

    @Test
    void pastTheLongestDelayWorthTakingItIsRefused() {
        assertThat(ladder.decide(refused(2001), tier(true), LADDER, "gpt-4o", false, true)
                        .stage())
                .isEqualTo(Stage.REJECTED);
    }

    @Test
    void aRequestIsHeldOnceAndNotWhenTheReplicaHoldsEnough() {
        assertThat(ladder.decide(refused(300), tier(true), LADDER, "gpt-4o", false, false)
                        .stage())
                .isEqualTo(Stage.REJECTED);
    }

    @Test
    void aRequestThatCanNeverFitIsNotHeld() {
        assertThat(ladder.decide(refused(-1), tier(true), LADDER, "gpt-4o", false, true)
                        .stage())
                .isEqualTo(Stage.REJECTED);
    }
}
