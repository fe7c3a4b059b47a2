package dev.sluice.gateway.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.sluice.gateway.config.Family;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantKey;
import dev.sluice.gateway.tiers.TierDocument;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.PropertyNamingStrategies.KebabCaseStrategy;
import tools.jackson.databind.annotation.JsonNaming;

/**
 * The JSON shapes of the admin API, as records Jackson writes in their components' order, so the
 * wire format is written down here, in one place. The configuration's records are named as
 * tiers.yaml names its fields (kebab-case), so the UI can show a field and its YAML path alike.
 * The usage series and the abuse flags are {@link AbuseViews}', the organisations {@link OrganisationViews}'.
 */
final class AdminViews {
    private AdminViews() {}

    record Document(
            long version,
            String etag,
            String updatedBy,
            String updatedAt,
            boolean appliedHere,
            String yaml,
            ConfigView config) {}

    record Summary(List<String> tiers, List<String> providers, int demoTenants) {}

    /** The answer to a validation that passed. */
    record Validated(boolean valid, Summary summary, ConfigView config) {}

    @JsonNaming(KebabCaseStrategy.class)
    record ConfigView(
            Map<String, TierView> tiers,
            LadderView ladder,
            AbuseView abuse,
            List<ProviderView> providers,
            Map<String, List<String>> routes,
            List<DemoTenantView> demoTenants) {}

    @JsonNaming(KebabCaseStrategy.class)
    record TierView(
            long tokensPerMinute,
            long requestsPerMinute,
            double burstAllowance,
            int priority,
            long defaultMaxTokens,
            List<WindowView> windows,
            Map<String, String> downgrade,
            boolean allowNoDowngrade,
            String redisDown,
            List<String> endpoints,
            boolean endpointsListed,
            List<String> models,
            Map<String, ModelLimitView> modelLimits,
            SpendView spend) {}

    /**
     * A tier's spend budgets in USD (a period it leaves uncapped: null), and the zone its periods
     * turn in; the whole view null when the tier caps no spend.
     */
    @JsonNaming(KebabCaseStrategy.class)
    record SpendView(BigDecimal usdPerDay, BigDecimal usdPerMonth, String timeZone) {
        static SpendView of(SpendBudget b) {
            return b.capped()
                    ? new SpendView(
                            usd(b.dayMicros()), usd(b.monthMicros()), b.zone().getId())
                    : null;
        }

        private static BigDecimal usd(long micros) {
            return micros == 0 ? null : BigDecimal.valueOf(micros, 6).stripTrailingZeros();
        }
    }

    /** A tier's window for one model; requests-per-minute null when only its tokens are capped. */
    @JsonNaming(KebabCaseStrategy.class)
    record ModelLimitView(long tokensPerMinute, Long requestsPerMinute) {}

    record WindowView(String name, long seconds, long tokens, long requests) {}

    @JsonNaming(KebabCaseStrategy.class)
    record LadderView(double downgradeAbove, long delayMinMs, long delayMaxMs, long maxDelayMs, int maxHeld) {}

    @JsonNaming(KebabCaseStrategy.class)
    record AbuseView(double threshold, int consecutiveMinutes, int historyHours) {}

    @JsonNaming(KebabCaseStrategy.class)
    record ProviderView(
            String name, String baseUrl, String apiKeyEnv, double headroom, Map<String, ModelView> models) {}

    /** The token limits a model leaves at 0 (unset) and its upstream name when it has none are left out. */
    @JsonNaming(KebabCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ModelView(
            long requestsPerMinute,
            Long tokensPerMinute,
            Long inputTokensPerMinute,
            Long outputTokensPerMinute,
            int maxInFlight,
            double pricePerMillionTokens,
            double pricePerMillionInputTokens,
            double pricePerMillionOutputTokens,
            String upstreamModel) {}

    record DemoTenantView(String id, String tier, boolean suspended) {}

    /** {@code spend}: the tenant's own spend budgets; left out when it has none and its tier's apply. */
    record TenantView(
            String id,
            String tier,
            boolean suspended,
            long keyCount,
            @JsonInclude(JsonInclude.Include.NON_NULL) SpendView spend,
            @JsonInclude(JsonInclude.Include.NON_NULL) String organisation) {}

    record TenantList(List<TenantView> tenants) {}

    record TenantWithKeys(@JsonUnwrapped TenantView tenant, List<KeyView> keys) {}

    /** A key's own caps and expiry are left out where it has none. */
    record KeyView(
            String id,
            String hint,
            String createdAt,
            @JsonInclude(JsonInclude.Include.NON_NULL) Long tokensPerMinute,
            @JsonInclude(JsonInclude.Include.NON_NULL) BigDecimal usdPerDay,
            @JsonInclude(JsonInclude.Include.NON_NULL) String expiresAt) {}

    record KeyList(List<KeyView> keys) {}

    /** A key as issued: {@code key}, the secret, is in this answer only. */
    record IssuedKey(@JsonUnwrapped KeyView issued, String tenant, String key, String notice) {}

    static Document document(TierDocument doc, SluiceConfig parsed, long appliedVersion) {
        return new Document(
                doc.version(),
                doc.etag(),
                doc.updatedBy(),
                doc.updatedAt().toString(),
                appliedVersion == doc.version(),
                doc.yaml(),
                parsed == null ? null : config(parsed));
    }

    static Summary summary(SluiceConfig c) {
        return new Summary(
                new ArrayList<>(c.tiers().keySet()),
                c.providers().stream().map(ProviderSettings::name).toList(),
                c.demoTenants().size());
    }

    /** The parsed configuration, defaults filled in (e.g. a tier's implicit hour window), in tiers.yaml's names. */
    static ConfigView config(SluiceConfig c) {
        Map<String, TierView> tiers = new LinkedHashMap<>();
        c.tiers().values().stream()
                .sorted(Comparator.comparingInt(Tier::priority).reversed().thenComparing(Tier::name))
                .forEach(t -> tiers.put(t.name(), tier(t)));
        LadderView ladder = new LadderView(
                c.ladder().downgradeAbove(),
                c.ladder().delayMinMs(),
                c.ladder().delayMaxMs(),
                c.ladder().maxDelayMs(),
                c.ladder().maxHeld());
        AbuseView abuse = new AbuseView(
                c.abuse().threshold(), c.abuse().consecutiveMinutes(), c.abuse().historyHours());
        List<ProviderView> providers =
                c.providers().stream().map(AdminViews::provider).toList();
        List<DemoTenantView> demo = c.demoTenants().stream()
                .map(d -> new DemoTenantView(d.id(), d.tier(), d.suspended()))
                .toList();
        return new ConfigView(tiers, ladder, abuse, providers, c.routes(), demo);
    }

    private static ProviderView provider(ProviderSettings p) {
        Map<String, ModelView> models = new LinkedHashMap<>();
        new TreeMap<>(p.models())
                .forEach((name, l) -> models.put(
                        name,
                        new ModelView(
                                l.requestsPerMinute(),
                                setOrNull(l.tokensPerMinute()),
                                setOrNull(l.inputTokensPerMinute()),
                                setOrNull(l.outputTokensPerMinute()),
                                l.maxInFlight(),
                                l.pricePerMillionTokens(),
                                l.pricePerMillionInputTokens(),
                                l.pricePerMillionOutputTokens(),
                                p.upstreamModels().get(name))));
        return new ProviderView(p.name(), p.baseUrl(), p.apiKeyEnv(), p.headroom(), models);
    }

    private static Long setOrNull(long limit) {
        return limit > 0 ? limit : null;
    }

    private static TierView tier(Tier t) {
        List<WindowView> windows = t.longerWindows().stream()
                .map(w -> new WindowView(w.name(), w.seconds(), w.tokens(), w.requests()))
                .toList();
        // The families open, defaults filled in; endpoints-listed false: the default, whose unmetered
        // and credential operations stay closed.
        return new TierView(
                t.tokensPerMinute(),
                t.requestsPerMinute(),
                t.burstAllowance(),
                t.priority(),
                t.defaultMaxTokens(),
                windows,
                new TreeMap<>(t.downgrade()),
                t.allowNoDowngrade(),
                t.redisDown().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                t.endpoints().families().stream().sorted().map(Family::wireName).toList(),
                t.endpoints().listed(),
                // null: the tier lists no models, and every model is open to it.
                t.models().listed() ? List.copyOf(t.models().allowed()) : null,
                modelLimits(t),
                SpendView.of(t.spend()));
    }

    private static Map<String, ModelLimitView> modelLimits(Tier t) {
        Map<String, ModelLimitView> out = new TreeMap<>();
        t.models()
                .limits()
                .forEach((model, w) -> out.put(
                        model,
                        new ModelLimitView(w.tokensPerMinute(), w.limitsRequests() ? w.requestsPerMinute() : null)));
        return out;
    }

    static TenantView tenant(Tenant t, long keyCount) {
        return new TenantView(
                t.id(),
                t.tierName(),
                t.suspended(),
                keyCount,
                t.spend() == null ? null : SpendView.of(t.spend()),
                t.organisation());
    }

    static KeyView key(TenantKey k) {
        return new KeyView(
                k.id(),
                k.hint(),
                k.createdAt().toString(),
                k.tokensPerMinute() > 0 ? k.tokensPerMinute() : null,
                k.usdPerDayMicros() > 0 ? usd(k.usdPerDayMicros()) : null,
                k.expiresAt() == null ? null : k.expiresAt().toString());
    }

    static BigDecimal usd(long micros) {
        return BigDecimal.valueOf(micros, 6).stripTrailingZeros();
    }

    /** To four decimals: what a chart can show. */
    static double rounded(double ratio) {
        return Math.round(ratio * 10_000) / 10_000.0;
    }
}
