package dev.sluice.gateway.shadow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.degrade.DegradationLadder;
import dev.sluice.gateway.degrade.LadderDecision;
import dev.sluice.gateway.estimate.Endpoint;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.QuotaStore;
import dev.sluice.gateway.quota.SpendPrice;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.tenant.Tenant;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Issue 28's isolation property: a draft in shadow never changes a live answer or a live window.
 * For random live documents, random drafts (stricter, looser, tiers renamed away, other ladders
 * and spend budgets) and random traffic, the live path is run twice on the same store's twin:
 * alone, and with every request also decided against the draft, its charges settled from the live
 * usage. Every live decision (admitted, Retry-After, each window's and budget's use) and the live
 * windows at the end must be the same. A failing seed is printed and replays.
 */
class ShadowNeverTouchesLivePropertyTest {
    static final String[] TENANTS = {"alpha", "beta", "gamma"};
    static final String[] MODELS = {"gpt-4o", "gpt-4o-mini"};

    final VirtualTimeScheduler time = VirtualTimeScheduler.create();

    @AfterEach
    void stop() {
        time.dispose();
    }

    static List<Long> seeds() {
        List<Long> seeds = new ArrayList<>();
        for (long s = 1; s <= 60; s++) seeds.add(s);
        return seeds;
    }

    /** A tiers document with two tiers of drawn limits; {@code renamed} drops tier "pro" (its tenants lose their tier). */
    static String document(SplittableRandom r, boolean renamed) {
        StringBuilder y = new StringBuilder("tiers:\n");
        for (String tier : renamed ? new String[] {"free", "plus"} : new String[] {"free", "pro"}) {
            y.append("  ").append(tier).append(":\n");
            y.append("    tokens-per-minute: ").append(500 + r.nextInt(20_000)).append('\n');
            y.append("    requests-per-minute: ").append(2 + r.nextInt(60)).append('\n');
            y.append("    burst-allowance: ")
                    .append(r.nextBoolean() ? "1.0" : "1.5")
                    .append('\n');
            y.append("    priority: 2\n");
            y.append("    downgrade: {gpt-4o: gpt-4o-mini}\n");
            if (r.nextBoolean())
                y.append("    spend: {usd-per-day: 0.0")
                        .append(10 + r.nextInt(50))
                        .append("}\n");
        }
        y.append("ladder:\n    downgrade-above: 0.").append(50 + r.nextInt(45)).append('\n');
        y.append("    max-delay-ms: ").append(r.nextInt(3) * 1_000).append('\n');
        y.append("providers:\n  - name: default\n    models:\n");
        y.append(
                        "      \"*\": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 50, price-per-million-tokens: ")
                .append(1 + r.nextInt(10))
                .append("}\n");
        return y.toString();
    }

    record Request(String tenant, String tier, String model, long prompt, long output, long used, long gapMs) {}

    /** What the live path answered, as a tenant and the windows see it. */
    record Seen(boolean admitted, long retryAfterMs, String blocking, String stage, String windows) {
        static Seen of(QuotaDecision d, LadderDecision step) {
            return new Seen(
                    d.admitted(),
                    d.retryAfterMs(),
                    d.blocking(),
                    step.stage().label(),
                    d.windows().toString() + d.spends());
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aDraftInShadowChangesNoLiveAnswerAndNoLiveWindow(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        SluiceConfig live = TiersYamlParser.parse("live", document(r, false));
        SluiceConfig draft = TiersYamlParser.parse("draft", document(r, r.nextInt(4) == 0));
        List<Request> traffic = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            int t = r.nextInt(TENANTS.length);
            long output = 1 + r.nextInt(2_000);
            traffic.add(new Request(
                    TENANTS[t],
                    t == 0 ? "free" : "pro",
                    MODELS[r.nextInt(MODELS.length)],
                    1 + r.nextInt(1_500),
                    output,
                    r.nextInt((int) output + 200),
                    r.nextInt(4) == 0 ? r.nextInt(20_000) : r.nextInt(300)));
        }
        Run alone = new Run(live, null, seed);
        Run shadowed = new Run(live, draft, seed);
        for (Request q : traffic) {
            Seen a = alone.serve(q);
            Seen b = shadowed.serve(q);
            assertThat(b)
                    .as("seed %d: the live answer with the draft in shadow", seed)
                    .isEqualTo(a);
        }
        for (String tenant : TENANTS) {
            Tier tier = live.tier(tenant.equals("alpha") ? "free" : "pro").orElseThrow();
            assertThat(shadowed.peek(tenant, tier))
                    .as("seed %d: %s's live windows at the end", seed, tenant)
                    .isEqualTo(alone.peek(tenant, tier));
        }
        assertThat(shadowed.drafted)
                .as("seed %d: the draft decided every request", seed)
                .isEqualTo(traffic.size());
    }

    /** The live path over one in-memory store (the Redis script's twin), with or without the draft in shadow. */
    final class Run {
        final FakeClock clock = new FakeClock(1_900_000_000_000L);
        final QuotaStore store = new InMemoryQuotaStore(clock);
        final QuotaLimiter limiter = new QuotaLimiter(
                store,
                null,
                Duration.ofSeconds(1),
                new SimpleMeterRegistry(),
                StoreState.alwaysUp(),
                null,
                clock,
                clock);
        final SluiceConfig live;
        final SluiceConfig draft;
        final DegradationLadder ladder;
        final ShadowEvaluator shadow;
        int drafted;

        Run(SluiceConfig live, SluiceConfig draft, long seed) {
            this.live = live;
            this.draft = draft;
            this.ladder = new DegradationLadder(new SplittableRandom(seed));
            this.shadow =
                    new ShadowEvaluator(limiter.apart(), new DegradationLadder(new SplittableRandom(-seed)), time);
        }

        Seen serve(Request q) {
            clock.advance(q.gapMs());
            time.advanceTimeBy(Duration.ofMillis(q.gapMs()));
            Tier tier = live.tier(q.tier()).orElseThrow();
            Tenant tenant = new Tenant(q.tenant(), q.tier(), false);
            RequestEstimate estimate =
                    new RequestEstimate(Endpoint.CHAT, q.model(), q.prompt(), q.output(), false, false);
            ShadowCharge charge = null;
            if (draft != null) {
                charge = new ShadowCharge((l, d) -> drafted++);
                ShadowCharge c = charge;
                shadow.decide(tenant, estimate, q.model(), false, draft, 7).subscribe(c::drafted);
            }
            QuotaLimiter.Outcome outcome = limiter.acquire(
                            tenant.id(),
                            tier,
                            tenant.spendUnder(tier),
                            q.model(),
                            estimate.totalTokens(),
                            SpendPrice.reserved(live, estimate),
                            DecisionBudget.UNLIMITED)
                    .block();
            // A held request is not asked again here: the second ask is the same path as the first.
            LadderDecision step = ladder.decide(outcome.decision(), tier, live.ladder(), q.model(), false, false);
            if (outcome.admitted()) {
                long cost = SpendPrice.settled(live, "default", q.model(), q.prompt(), q.used());
                if (charge != null) charge.settled(q.prompt() + q.used(), cost);
                outcome.reservation().settle(q.prompt() + q.used(), cost).block();
            }
            if (charge != null) {
                // The draft's delays run on virtual time: let them end, so its second asks land now too.
                time.advanceTimeBy(Duration.ofSeconds(3));
                charge.lived(step.stage());
            }
            return Seen.of(outcome.decision(), step);
        }

        String peek(String tenant, Tier tier) {
            return limiter.peekAll(tenant, tier, new Tenant(tenant, tier.name(), false).spendUnder(tier), "gpt-4o")
                    .block()
                    .toString();
        }
    }
}
