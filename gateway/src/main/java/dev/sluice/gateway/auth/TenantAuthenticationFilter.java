package dev.sluice.gateway.auth;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.api.RequestActivity;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.DecisionBudgets;
import dev.sluice.gateway.store.StoreUnavailableException;
import dev.sluice.gateway.tenant.ApiKeys;
import dev.sluice.gateway.tenant.Caller;
import dev.sluice.gateway.tenant.InMemoryOrganisationStore;
import dev.sluice.gateway.tenant.Organisation;
import dev.sluice.gateway.tenant.OrganisationStore;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantKey;
import dev.sluice.gateway.tenant.TenantStore;
import java.time.Clock;
import java.util.Optional;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * First stage of the tenant path: the caller's key (Bearer or x-api-key) resolves a tenant
 * and, through the configuration in force, its tier. The key itself is hashed at once and
 * never logged or forwarded.
 */
public class TenantAuthenticationFilter implements GlobalFilter, Ordered {
    private final TenantStore tenants;
    private final OrganisationStore organisations;
    private final ConfigRegistry config;
    private final RequestActivity activity;
    private final DecisionBudgets budgets;
    private final Clock clock;

    /** @param budgets each request's store budget, taken here as it arrives; null: none (each call its own timeout) */
    public TenantAuthenticationFilter(
            TenantStore tenants, ConfigRegistry config, RequestActivity activity, DecisionBudgets budgets) {
        this(tenants, new InMemoryOrganisationStore(), config, activity, budgets, Clock.systemUTC());
    }

    /**
     * @param organisations where a member tenant's organisation is read (its shared caps)
     * @param clock         what a key's expiry is compared with (the quota's clock)
     */
    public TenantAuthenticationFilter(
            TenantStore tenants,
            OrganisationStore organisations,
            ConfigRegistry config,
            RequestActivity activity,
            DecisionBudgets budgets,
            Clock clock) {
        this.tenants = tenants;
        this.organisations = organisations;
        this.config = config;
        this.activity = activity;
        this.budgets = budgets;
        this.clock = clock;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        String key = presentedKey(exchange.getRequest().getHeaders());
        if (key == null) {
            return OpenAiErrors.invalidApiKey(
                    exchange, "Missing API key: send it as 'Authorization: Bearer <key>' or 'x-api-key'.");
        }
        String hash = ApiKeys.sha256Hex(key);
        // The first stage that may wait on the store: the request's budget starts here, for every stage after it too.
        DecisionBudget budget = budgets == null ? DecisionBudget.UNLIMITED : budgets.start();
        SluiceAttributes.DECISION_BUDGET.set(exchange, budget);
        // Mono<Void> completes empty, so the unknown-key branch is decided on an Optional, not switchIfEmpty.
        return tenants.findCaller(hash, budget)
                .flatMap(caller -> withOrganisation(caller, budget))
                .map(Optional::of)
                .defaultIfEmpty(Optional.empty())
                // Redis out and the key never seen here: no tier to apply a policy from, so refuse briefly.
                .onErrorResume(
                        StoreUnavailableException.class,
                        e -> storeUnavailable(exchange).then(Mono.empty()))
                .flatMap(found -> found.isPresent()
                        ? admit(exchange, chain, found.get())
                        : OpenAiErrors.invalidApiKey(exchange, "Incorrect API key provided."));
    }

    private static Mono<Void> storeUnavailable(ServerWebExchange exchange) {
        return OpenAiErrors.unavailable(
                exchange, "quota_store_unavailable", "The gateway cannot check this key right now; retry in a second.");
    }

    /** The caller and its tenant's organisation (none when it is in none, or in one deleted since). */
    private Mono<Found> withOrganisation(Caller caller, DecisionBudget budget) {
        String orgId = caller.tenant().organisation();
        if (orgId == null) return Mono.just(new Found(caller, null));
        return organisations
                .findById(orgId, budget)
                .map(o -> new Found(caller, o))
                .defaultIfEmpty(new Found(caller, null));
    }

    private record Found(Caller caller, Organisation organisation) {}

    private Mono<Void> admit(ServerWebExchange exchange, GatewayFilterChain chain, Found found) {
        Tenant tenant = found.caller().tenant();
        TenantKey key = found.caller().key();
        if (key != null && key.expiredAt(clock.instant())) {
            // Before the tenant's state and anything charged: an expired key is no key.
            exchange.getResponse().getHeaders().set("WWW-Authenticate", "Bearer");
            return OpenAiErrors.write(
                    exchange,
                    HttpStatus.UNAUTHORIZED,
                    "invalid_request_error",
                    "key_expired",
                    "This API key expired at " + key.expiresAt() + ". Ask the gateway's operators for a new one.");
        }
        if (tenant.suspended()) {
            return OpenAiErrors.write(
                    exchange,
                    HttpStatus.FORBIDDEN,
                    "access_terminated",
                    "account_suspended",
                    "This account is suspended. Contact the gateway's operators.");
        }
        SluiceConfig snapshot = config.current();
        Tier tier = snapshot.tier(tenant.tierName()).orElse(null);
        if (tier == null) {
            return OpenAiErrors.write(
                    exchange,
                    HttpStatus.FORBIDDEN,
                    "invalid_request_error",
                    "tier_not_found",
                    "This account's tier '" + tenant.tierName()
                            + "' is not configured. Contact the gateway's operators.");
        }
        SluiceAttributes.TENANT.set(exchange, tenant);
        if (found.organisation() != null) SluiceAttributes.ORGANISATION.set(exchange, found.organisation());
        if (key != null) SluiceAttributes.KEY.set(exchange, key);
        SluiceAttributes.TIER.set(exchange, tier);
        SluiceAttributes.CONFIG.set(exchange, snapshot);
        activity.requestSeen(tenant.id(), tier.name()); // in memory; shipped to the sampler in the background
        exchange.getResponse().getHeaders().set("X-Sluice-Tier", tier.name());
        return chain.filter(exchange);
    }

    /** The key from {@code Authorization: Bearer …} or {@code x-api-key}; null when neither carries one. */
    static String presentedKey(HttpHeaders headers) {
        String auth = headers.getFirst(HttpHeaders.AUTHORIZATION);
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            String key = auth.substring(7).trim();
            if (!key.isEmpty()) return key;
        }
        String apiKey = headers.getFirst("x-api-key");
        return apiKey == null || apiKey.isBlank() ? null : apiKey.trim();
    }

    @Override
    public int getOrder() {
        return FilterOrder.AUTHENTICATE;
    }
}
