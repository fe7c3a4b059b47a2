package dev.sluice.gateway.spend;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.support.Periodic;
import dev.sluice.gateway.tenant.TenantStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;

/**
 * {@code sluice.spend.budget.tenants{tier, period, level}}: every {@code interval} (a minute) the
 * spend budgets of every tenant are peeked (charging nothing) and counted by
 * {@link BudgetUtilisation}. A fleet-wide figure, the same on every replica when Redis is shared:
 * aggregate with {@code max}. Off the request path; a tenant whose peek fails is left out of that sample.
 */
public final class BudgetGauges {
    public static final String TENANTS = "sluice.spend.budget.tenants";

    private final TenantStore tenants;
    private final QuotaLimiter limiter;
    private final ConfigRegistry config;
    private final MeterRegistry meters;
    private final Map<String, AtomicLong> gauges = new ConcurrentHashMap<>();
    private final Periodic sampling = new Periodic("spend budget gauges", this::sample);

    public BudgetGauges(TenantStore tenants, QuotaLimiter limiter, ConfigRegistry config, MeterRegistry meters) {
        this.tenants = tenants;
        this.limiter = limiter;
        this.config = config;
        this.meters = meters;
        for (String tier : config.current().tiers().keySet())
            for (String p : SpendRefusalsMeter.PERIODS) {
                gauge(tier, p, BudgetUtilisation.ABOVE_80);
                gauge(tier, p, BudgetUtilisation.AT_100);
            }
    }

    private AtomicLong gauge(String tier, String period, String level) {
        return gauges.computeIfAbsent(BudgetUtilisation.key(tier, period, level), k -> {
            AtomicLong v = new AtomicLong();
            meters.gauge(TENANTS, Tags.of("tier", tier, "period", period, "level", level), v);
            return v;
        });
    }

    public void start(Duration interval) {
        sampling.start(Duration.ofSeconds(5), interval);
    }

    public void stop() {
        sampling.stop();
    }

    /** One pass over every tenant whose budgets are capped. */
    public Mono<Void> sample() {
        SluiceConfig c = config.current();
        BudgetUtilisation counts = new BudgetUtilisation();
        return tenants.findAll()
                .flatMap(
                        t -> {
                            Tier tier = c.tier(t.tierName()).orElse(null);
                            if (tier == null || !t.spendUnder(tier).capped()) return Mono.empty();
                            return limiter.peekTenantLevel(t, tier, null)
                                    .doOnNext(d -> {
                                        synchronized (counts) {
                                            counts.add(tier.name(), d.spends());
                                        }
                                    })
                                    .onErrorResume(e -> Mono.empty());
                        },
                        8)
                .then(Mono.fromRunnable(() -> {
                    for (String tier : c.tiers().keySet())
                        for (String p : SpendRefusalsMeter.PERIODS)
                            for (String level : List.of(BudgetUtilisation.ABOVE_80, BudgetUtilisation.AT_100))
                                gauge(tier, p, level).set(counts.count(tier, p, level));
                }));
    }
}
