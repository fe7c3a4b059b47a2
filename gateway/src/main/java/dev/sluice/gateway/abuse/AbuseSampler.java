package dev.sluice.gateway.abuse;

import dev.sluice.gateway.accuracy.EnforcementAccuracy;
import dev.sluice.gateway.config.AbuseSettings;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.WindowUsage;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Samples one minute for every tenant active in it: the tenant's windows as the minute ends
 * (what its 60 s window holds, and the tightest window's utilisation), the minute's stage
 * counts and its {@link CeilingSignal} (how hard it pressed on its ceiling during the minute,
 * the number the detector reads), appended to its series; then runs the {@link CeilingDetector} on the series
 * and opens a flag when it finds one. Time comes from the clock passed in.
 */
public final class AbuseSampler {
    /** Tagged {@code result}: sampled or failed. */
    static final String SAMPLES = "sluice.abuse.samples";
    /** Tagged {@code tier}. */
    static final String FLAGS_OPENED = "sluice.abuse.flags.opened";

    private static final Logger log = LoggerFactory.getLogger(AbuseSampler.class);
    private static final int PARALLEL_TENANTS = 16;

    /** What one minute's run did. */
    public record MinuteReport(long minuteStartMs, int sampled, List<Flag> opened) {
        public MinuteReport {
            opened = List.copyOf(opened);
        }
    }

    private final TenantActivity activity;
    private final QuotaLimiter quota;
    private final UsageHistory history;
    private final FlagStore flags;
    private final TenantStore tenants;
    private final Supplier<SluiceConfig> config;
    private final Clock clock;
    private final MeterRegistry meters;

    public AbuseSampler(
            TenantActivity activity,
            QuotaLimiter quota,
            UsageHistory history,
            FlagStore flags,
            TenantStore tenants,
            Supplier<SluiceConfig> config,
            Clock clock,
            MeterRegistry meters) {
        this.activity = activity;
        this.quota = quota;
        this.history = history;
        this.flags = flags;
        this.tenants = tenants;
        this.config = config;
        this.clock = clock;
        this.meters = meters;
        // At zero from start: the dashboard's and the alerts' series exist before the first minute is sampled.
        for (String result : List.of("sampled", "failed")) meters.counter(SAMPLES, "result", result);
        for (String tier : config.get().tiers().keySet()) meters.counter(FLAGS_OPENED, "tier", tier);
    }

    public Mono<MinuteReport> sampleMinute(long minuteStartMs) {
        SluiceConfig snapshot = config.get();
        AbuseSettings abuse = snapshot.abuse();
        CeilingDetector detector = new CeilingDetector(abuse.threshold(), abuse.consecutiveMinutes());
        int retentionMinutes = abuse.historyHours() * 60;
        return activity.minute(minuteStartMs).flatMap(act -> {
            TreeSet<String> active = new TreeSet<>(act.tierByTenant().keySet());
            active.addAll(act.stagesByTenant().keySet());
            return Flux.fromIterable(active)
                    .flatMap(
                            tenant -> tierOf(tenant, act)
                                    .flatMap(tierName ->
                                            sampleTenant(tenant, tierName, act, snapshot, detector, retentionMinutes)),
                            PARALLEL_TENANTS)
                    .collectList()
                    .map(results -> new MinuteReport(
                            minuteStartMs,
                            results.size(),
                            results.stream().flatMap(Optional::stream).toList()));
        });
    }

    /** The tier the tenant was served under in the minute; for a tenant with only stage counts, its tier now. */
    private Mono<String> tierOf(String tenantId, MinuteActivity act) {
        String tier = act.tierByTenant().get(tenantId);
        return tier != null ? Mono.just(tier) : tenants.findById(tenantId).map(Tenant::tierName);
    }

    private Mono<Optional<Flag>> sampleTenant(
            String tenantId,
            String tierName,
            MinuteActivity act,
            SluiceConfig snapshot,
            CeilingDetector detector,
            int retentionMinutes) {
        Tier tier = snapshot.tier(tierName).orElse(null);
        if (tier == null) return Mono.empty(); // a tier removed since: nothing to measure against
        long minute = act.minuteStartMs();
        // Where its windows live: under its organisation when it is in one (QuotaScope).
        return tenants.findById(tenantId)
                .defaultIfEmpty(new Tenant(tenantId, tierName, false))
                .flatMap(t -> quota.peekTenant(t, tier))
                .doOnNext(windows -> EnforcementAccuracy.overshoot(meters, tierName, overshoot(windows)))
                .map(windows -> sample(minute, tenantId, tierName, windows, act))
                .flatMap(sample -> history.append(tenantId, sample, retentionMinutes)
                        .then(detect(tenantId, tierName, minute, detector)))
                .doOnSuccess(x -> meters.counter(SAMPLES, "result", "sampled").increment())
                .onErrorResume(e -> {
                    meters.counter(SAMPLES, "result", "failed").increment();
                    log.debug(
                            "Could not sample tenant {} for minute {}: {}",
                            tenantId,
                            Instant.ofEpochMilli(minute),
                            e.toString());
                    return Mono.empty();
                });
    }

    /** How far the fullest window holds more tokens than its limit, as settled: 0 when none does. */
    static long overshoot(List<WindowUsage> windows) {
        long over = 0;
        for (WindowUsage w : windows) over = Math.max(over, w.usedTokens() - w.limitTokens());
        return over;
    }

    static UsageSample sample(
            long minute, String tenantId, String tierName, List<WindowUsage> windows, MinuteActivity act) {
        WindowUsage tightest = windows.get(0);
        for (WindowUsage w : windows) if (w.utilisation() > tightest.utilisation()) tightest = w;
        WindowUsage sixty =
                windows.stream().filter(w -> w.seconds() == 60).findFirst().orElse(windows.get(0));
        return new UsageSample(
                minute,
                tierName,
                sixty.usedTokens(),
                sixty.usedRequests(),
                tightest.utilisation(),
                tightest.name(),
                act.stages(tenantId),
                CeilingSignal.measure(act.pressure(tenantId), windows).orElse(null));
    }

    private Mono<Optional<Flag>> detect(String tenantId, String tierName, long minute, CeilingDetector detector) {
        Mono<List<UsageSample>> series =
                history.since(tenantId, minute - detector.lookbackMs()).collectList();
        Mono<Optional<Flag>> latest =
                flags.latestFor(tenantId).map(Optional::of).defaultIfEmpty(Optional.empty());
        return Mono.zip(series, latest).flatMap(t -> {
            Flag last = t.getT2().orElse(null);
            boolean open = last != null && last.isOpen();
            long notBefore = last == null || open ? 0 : last.closedAt().toEpochMilli();
            return detector.evaluate(t.getT1(), minute, notBefore, open)
                    .map(finding -> open(tenantId, tierName, finding))
                    .orElse(Mono.just(Optional.empty()));
        });
    }

    private Mono<Optional<Flag>> open(String tenantId, String tierName, CeilingDetector.Finding finding) {
        String id = "flag_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        Flag flag = Flag.open(id, tenantId, tierName, clock.instant(), finding);
        return flags.openIfNone(flag)
                .map(f -> {
                    meters.counter(FLAGS_OPENED, "tier", tierName).increment();
                    log.warn(
                            "Tenant {} flagged for review ({}): at or above its ceiling for {} consecutive minutes since {}",
                            tenantId,
                            f.id(),
                            finding.run().minutes(),
                            f.runStart());
                    return Optional.of(f);
                })
                .defaultIfEmpty(Optional.empty());
    }
}
