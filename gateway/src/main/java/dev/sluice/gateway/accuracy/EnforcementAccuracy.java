package dev.sluice.gateway.accuracy;

import dev.sluice.gateway.support.PercentSummary;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How accurate the enforcement is, as meters an operator can read instead of taking the limiter on
 * faith (docs/metrics.md, "Enforcement accuracy"):
 * <ul>
 * <li>{@link #SETTLED_OF_RESERVED}: each served request's settled tokens as a percent of its reservation,
 * per tier and provider (under 100: reserved more than used, the room held back for nothing while it ran);</li>
 * <li>{@link #OVERSHOOT} and {@link #OVERSHOOT_TOKENS}: tenant-minutes whose window, charged what was
 * really used, held more than its limit, and by how many tokens (sampled once a minute for the
 * fleet by the abuse sampler);</li>
 * <li>{@link #REFUSALS}: each 429 of a token window, judged by {@link RefusalVerdicts} once the calls
 * that filled the window settled: {@code unnecessary} when they gave back enough that it would have fit;</li>
 * <li>{@link #PROVIDER_TOKENS}: the tokens each provider reported using, the denominator of its 429s
 * per million admitted tokens ({@code sluice_upstream_responses_total{status="429"}} over it).</li>
 * </ul>
 * Label values are tiers and providers from tiers.yaml and the verdicts: bounded.
 */
public final class EnforcementAccuracy {
    public static final String SETTLED_OF_RESERVED = "sluice.tokens.settled.of.reserved";
    public static final String OVERSHOOT = "sluice.quota.overshoot";
    public static final String OVERSHOOT_TOKENS = "sluice.quota.overshoot.tokens";
    public static final String REFUSALS = "sluice.quota.refusals.audited";
    public static final String PROVIDER_TOKENS = "sluice.provider.tokens";
    /** The provider tag of a request that settled without one (it never reached a provider). */
    static final String NO_PROVIDER = "none";

    private static final long EXPIRE_EVERY_MS = 60_000;

    private final MeterRegistry meters;
    private final Clock clock;
    private final RefusalVerdicts verdicts = new RefusalVerdicts();
    /** By tier, then provider; and each provider's tokens: looked up on every settlement without building a key. */
    private final Map<String, Map<String, DistributionSummary>> ratios = new ConcurrentHashMap<>();

    private final Map<String, Counter> providerTokens = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private long lastExpiryMs;

    public EnforcementAccuracy(MeterRegistry meters, Clock clock) {
        this.meters = meters;
        this.clock = clock;
    }

    /** Every series the dashboard reads, at zero from start (a series born at its first event hides it from increase()). */
    public void registerMeters(Collection<String> tiers, Collection<String> providers) {
        for (String tier : tiers) {
            for (String provider : providers) ratio(tier, provider);
            counter(OVERSHOOT, "tier", tier);
            counter(OVERSHOOT_TOKENS, "tier", tier);
            for (RefusalVerdicts.Verdict v : RefusalVerdicts.Verdict.values())
                counter(REFUSALS, "tier", tier, "verdict", v.label());
        }
        for (String provider : providers) providerTokens(provider);
    }

    /** A reservation was charged for the tenant; {@code handle} identifies it when it settles. */
    public void opened(String tenant, Object handle, long reservedTokens) {
        long now = clock.millis();
        synchronized (verdicts) {
            verdicts.opened(tenant, handle, reservedTokens, now);
        }
    }

    /** The reservation was settled by another path, at an unknown amount: it counts as giving nothing back. */
    public void forget(String tenant, Object handle) {
        List<RefusalVerdicts.Decided> done;
        synchronized (verdicts) {
            done = verdicts.settled(tenant, handle, Long.MAX_VALUE);
        }
        count(done);
    }

    /** The reservation was refunded whole: the request never reached a provider. */
    public void refunded(String tenant, Object handle) {
        List<RefusalVerdicts.Decided> done;
        synchronized (verdicts) {
            done = verdicts.settled(tenant, handle, 0);
        }
        count(done);
    }

    /** The reservation settled at {@code usedTokens} after {@code provider} (null: none) served it. */
    public void settled(
            String tenant, String tier, String provider, Object handle, long reservedTokens, long usedTokens) {
        List<RefusalVerdicts.Decided> done;
        synchronized (verdicts) {
            done = verdicts.settled(tenant, handle, usedTokens);
        }
        count(done);
        String p = provider == null ? NO_PROVIDER : provider;
        if (reservedTokens > 0) ratio(tier, p).record((double) usedTokens / reservedTokens);
        if (provider != null && usedTokens > 0) providerTokens(provider).increment(usedTokens);
    }

    /**
     * A 429 of a token window of {@code windowMs} that the request missed by {@code shortfallTokens}
     * (what it needed over the window's room). Refusals by a request count or a spend budget are not
     * judged: a request is charged exactly, and money by its own reservation rule.
     */
    public void refused(String tenant, String tier, long shortfallTokens, long windowMs) {
        long now = clock.millis();
        List<RefusalVerdicts.Decided> done;
        synchronized (verdicts) {
            done = verdicts.refused(tenant, tier, shortfallTokens, windowMs, now);
            if (now - lastExpiryMs >= EXPIRE_EVERY_MS) {
                lastExpiryMs = now;
                done = concat(done, verdicts.expire(now));
            }
        }
        count(done);
    }

    /**
     * A sampled tenant-minute whose fullest window held {@code overTokens} more than its limit. Static
     * on the registry: the abuse sampler, which reads the windows once a minute for the fleet, counts it.
     */
    public static void overshoot(MeterRegistry meters, String tier, long overTokens) {
        if (overTokens <= 0) return;
        meters.counter(OVERSHOOT, "tier", tier).increment();
        meters.counter(OVERSHOOT_TOKENS, "tier", tier).increment(overTokens);
    }

    /** Refusals still waiting for the calls in their window to settle, on this replica. */
    public int pendingVerdicts() {
        synchronized (verdicts) {
            return verdicts.pending();
        }
    }

    private void count(List<RefusalVerdicts.Decided> done) {
        for (RefusalVerdicts.Decided d : done)
            counter(REFUSALS, "tier", d.tier(), "verdict", d.verdict().label()).increment();
    }

    private Counter providerTokens(String provider) {
        return providerTokens.computeIfAbsent(provider, p -> meters.counter(PROVIDER_TOKENS, "provider", p));
    }

    private DistributionSummary ratio(String tier, String provider) {
        return ratios.computeIfAbsent(tier, t -> new ConcurrentHashMap<>())
                .computeIfAbsent(
                        provider,
                        k -> PercentSummary.register(
                                meters,
                                SETTLED_OF_RESERVED,
                                Tags.of("tier", tier, "provider", provider),
                                "Settled tokens as a percent of the tokens reserved up front, per served request",
                                0.1,
                                0.25,
                                0.5,
                                0.75,
                                0.9,
                                1.0,
                                1.1,
                                1.25,
                                1.5,
                                2));
    }

    private Counter counter(String name, String... tags) {
        return counters.computeIfAbsent(name + '\n' + String.join("\n", tags), k -> meters.counter(name, tags));
    }

    private static List<RefusalVerdicts.Decided> concat(
            List<RefusalVerdicts.Decided> a, List<RefusalVerdicts.Decided> b) {
        if (b.isEmpty()) return a;
        if (a.isEmpty()) return b;
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
