package dev.sluice.gateway.abuse;

import dev.sluice.gateway.api.RequestActivity;
import dev.sluice.gateway.quota.QuotaDecision;
import reactor.core.publisher.Mono;

/**
 * Which tenants were active in which minute, what the request path did with their requests,
 * and what the quota answered them. The writes are called on every request: they only touch
 * this process's memory (a map put, atomic updates) and never wait on a store; the Redis
 * adapter ships the counts in the background, once a second.
 */
public interface TenantActivity extends RequestActivity {

    /**
     * The quota answered one of the tenant's requests of {@code requestTokens} (estimated) with
     * {@code decision}; {@code held} when the ladder holds a refused request rather than refusing it.
     * Feeds the per-minute ceiling signal ({@link CeilingSignal}).
     */
    void quotaAnswered(String tenantId, long requestTokens, QuotaDecision decision, boolean held);

    /** Everything recorded for the minute starting at {@code minuteStartMs}, by every replica. */
    Mono<MinuteActivity> minute(long minuteStartMs);

    /** Ships what is buffered (Redis); a no-op where nothing is buffered. */
    default Mono<Void> flush() {
        return Mono.empty();
    }
}
