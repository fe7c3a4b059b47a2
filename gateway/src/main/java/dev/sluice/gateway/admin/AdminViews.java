package dev.sluice.gateway.admin;

import dev.sluice.gateway.abuse.Flag;
import dev.sluice.gateway.abuse.FlagReview;
import dev.sluice.gateway.abuse.Ceiling;
import dev.sluice.gateway.abuse.UsageSample;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantKey;
import dev.sluice.gateway.config.DemoTenant;
import dev.sluice.gateway.config.Family;
import dev.sluice.gateway.config.ModelLimits;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.tiers.TierDocument;
import dev.sluice.gateway.config.WindowLimit;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The JSON shapes of the admin API, built as ordered maps so the wire format is written down
 * here, in one place, and does not follow a record's field names by accident. Field names of
 * the configuration are those of tiers.yaml, so the UI can show a field and its YAML path alike.
 */
final class AdminViews {
    private AdminViews() {
    }

    static Map<String, Object> document(TierDocument doc, SluiceConfig parsed, long appliedVersion) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("version", doc.version());
        m.put("etag", doc.etag());
        m.put("updatedBy", doc.updatedBy());
        m.put("updatedAt", doc.updatedAt().toString());
        m.put("appliedHere", appliedVersion == doc.version());
        m.put("yaml", doc.yaml());
        m.put("config", parsed == null ? null : config(parsed));
        return m;
    }

    static Map<String, Object> summary(SluiceConfig c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tiers", new ArrayList<>(c.tiers().keySet()));
        m.put("providers", c.providers().stream().map(ProviderSettings::name).toList());
        m.put("demoTenants", c.demoTenants().size());
        return m;
    }

    /** The parsed configuration, defaults filled in (e.g. a tier's implicit hour window), in tiers.yaml's names. */
    static Map<String, Object> config(SluiceConfig c) {
        Map<String, Object> tiers = new LinkedHashMap<>();
        c.tiers().values().stream().sorted(Comparator.comparingInt(Tier::priority).reversed()
                .thenComparing(Tier::name)).forEach(t -> tiers.put(t.name(), tier(t)));
        Map<String, Object> ladder = new LinkedHashMap<>();
        ladder.put("downgrade-above", c.ladder().downgradeAbove());
        ladder.put("delay-min-ms", c.ladder().delayMinMs());
        ladder.put("delay-max-ms", c.ladder().delayMaxMs());
        ladder.put("max-delay-ms", c.ladder().maxDelayMs());
        ladder.put("max-held", c.ladder().maxHeld());
        Map<String, Object> abuse = new LinkedHashMap<>();
        abuse.put("threshold", c.abuse().threshold());
        abuse.put("consecutive-minutes", c.abuse().consecutiveMinutes());
        abuse.put("history-hours", c.abuse().historyHours());
        List<Object> providers = new ArrayList<>();
        for (ProviderSettings p : c.providers()) {
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("name", p.name());
            pm.put("base-url", p.baseUrl());
            pm.put("api-key-env", p.apiKeyEnv());
            pm.put("headroom", p.headroom());
            Map<String, Object> models = new LinkedHashMap<>();
            p.models().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
                ModelLimits l = e.getValue();
                Map<String, Object> lm = new LinkedHashMap<>();
                lm.put("requests-per-minute", l.requestsPerMinute());
                if (l.tokensPerMinute() > 0) lm.put("tokens-per-minute", l.tokensPerMinute());
                if (l.inputTokensPerMinute() > 0) lm.put("input-tokens-per-minute", l.inputTokensPerMinute());
                if (l.outputTokensPerMinute() > 0) lm.put("output-tokens-per-minute", l.outputTokensPerMinute());
                lm.put("max-in-flight", l.maxInFlight());
                lm.put("price-per-million-tokens", l.pricePerMillionTokens());
                String upstream = p.upstreamModels().get(e.getKey());
                if (upstream != null) lm.put("upstream-model", upstream);
                models.put(e.getKey(), lm);
            });
            pm.put("models", models);
            providers.add(pm);
        }
        List<Object> demo = new ArrayList<>();
        for (DemoTenant d : c.demoTenants()) {
            Map<String, Object> dm = new LinkedHashMap<>();
            dm.put("id", d.id());
            dm.put("tier", d.tier());
            dm.put("suspended", d.suspended());
            demo.add(dm);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tiers", tiers);
        m.put("ladder", ladder);
        m.put("abuse", abuse);
        m.put("providers", providers);
        m.put("routes", c.routes());
        m.put("demo-tenants", demo);
        return m;
    }

    private static Map<String, Object> tier(Tier t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tokens-per-minute", t.tokensPerMinute());
        m.put("requests-per-minute", t.requestsPerMinute());
        m.put("burst-allowance", t.burstAllowance());
        m.put("priority", t.priority());
        m.put("default-max-tokens", t.defaultMaxTokens());
        List<Object> windows = new ArrayList<>();
        for (WindowLimit w : t.longerWindows()) {
            Map<String, Object> wm = new LinkedHashMap<>();
            wm.put("name", w.name());
            wm.put("seconds", w.seconds());
            wm.put("tokens", w.tokens());
            wm.put("requests", w.requests());
            windows.add(wm);
        }
        m.put("windows", windows);
        m.put("downgrade", new TreeMap<>(t.downgrade()));
        m.put("allow-no-downgrade", t.allowNoDowngrade());
        m.put("redis-down", t.redisDown().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        // The families open, defaults filled in; endpoints-listed false: the default, whose unmetered
        // and credential operations stay closed.
        m.put("endpoints", t.endpoints().families().stream().sorted().map(Family::wireName).toList());
        m.put("endpoints-listed", t.endpoints().listed());
        return m;
    }

    static Map<String, Object> tenant(Tenant t, long keyCount) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", t.id());
        m.put("tier", t.tierName());
        m.put("suspended", t.suspended());
        m.put("keyCount", keyCount);
        return m;
    }

    static Map<String, Object> key(TenantKey k) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", k.id());
        m.put("hint", k.hint());
        m.put("createdAt", k.createdAt().toString());
        return m;
    }

    static Map<String, Object> point(UsageSample s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("minute", Instant.ofEpochMilli(s.minuteStartMs()).toString());
        m.put("tier", s.tier());
        m.put("tokens", s.tokens());
        m.put("requests", s.requests());
        m.put("utilisation", Math.round(s.utilisation() * 10_000) / 10_000.0);
        m.put("window", s.window());
        m.put("stages", s.stages());
        // Added with the ceiling signal; the fields above keep their meaning (utilisation: the snapshot as the minute ended).
        m.put("pressure", Math.round(s.pressure() * 10_000) / 10_000.0);
        m.put("ceiling", ceiling(s.ceiling()));
        return m;
    }

    /** What the minute's ceiling signal measured, or null for a point stored before it existed. */
    static Map<String, Object> ceiling(Ceiling c) {
        if (c == null) return null;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("window", c.window());
        m.put("reason", c.reason());
        m.put("fill", c.fill());
        m.put("peak", c.peak());
        m.put("roomTokens", c.roomTokens() < 0 ? null : c.roomTokens());
        m.put("typicalTokens", c.typicalTokens());
        m.put("refused", c.refused());
        m.put("held", c.held());
        return m;
    }

    static Map<String, Object> flag(Flag f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", f.id());
        m.put("tenant", f.tenantId());
        m.put("tier", f.tier());
        m.put("status", f.status().wire());
        m.put("openedAt", f.openedAt().toString());
        m.put("closedAt", f.closedAt() == null ? null : f.closedAt().toString());
        m.put("runStart", f.runStart().toString());
        m.put("runMinutes", f.runMinutes());
        m.put("evidence", f.evidence().stream().map(AdminViews::point).toList());
        m.put("reviews", f.reviews().stream().map(AdminViews::review).toList());
        return m;
    }

    private static Map<String, Object> review(FlagReview r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("by", r.by());
        m.put("at", r.at().toString());
        m.put("action", r.action().wire());
        m.put("note", r.note());
        m.put("tier", r.tier());
        return m;
    }
}
