package dev.sluice.gateway.simulation;

import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.usage.Usage;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * What the request path keeps on a {@code ServerWebExchange}, for one simulated request: the
 * attributes the stages hand on (model, tier, estimate, options, the provider that served), and
 * the response as the settle stage records it (status, usage, whether it was committed, the
 * "never sent" mark). Committing it is the answer reaching the tenant.
 */
final class Exchange {
    final Attempt attempt;
    final Tier tier;
    String model; // the model asked for, or the ladder's downgrade
    String provider; // SluiceAttributes.PROVIDER: the last attempt's
    long queuedMs; // X-Sluice-Queue-Wait-Ms
    // The response.
    private int status; // 0: not set; reads as Netty's default, 200 (ReactorServerHttpResponse.getStatusCode)
    Usage usage; // UsageRecordingResponse's: read from a 2xx answer that passed
    boolean neverSent; // SluiceAttributes.NEVER_SENT
    boolean committed;
    /** The settle stage's beforeCommit hook (RateLimitHeaders, and the refund of a request never sent). */
    Supplier<Mono<Void>> beforeCommit = Mono::empty;
    /** Where a committed answer goes: the tenant. */
    Runnable delivered = () -> {};

    Exchange(Attempt attempt, Tier tier, String model) {
        this.attempt = attempt;
        this.tier = tier;
        this.model = model;
    }

    /** The status as the settle stage reads it: what was set, else the server response's default. */
    int status() {
        return status == 0 ? 200 : status;
    }

    /** ServerWebExchangeUtils.reset plus {@code setStatusCode(null)}: the call can be made again. */
    void resetForRetry() {
        status = 0;
        usage = null;
    }

    /**
     * Writes an answer (OpenAiErrors.write, or the provider's answer passing): the beforeCommit
     * hook first, as a committing response runs it, then the tenant has it. A second write to a
     * committed response is counted: the invariant "answered exactly once" reads it.
     */
    Mono<Void> write(int status, String what, long retryAfterMs, Usage usage) {
        return Mono.defer(() -> {
            attempt.commits++;
            if (committed) return Mono.empty();
            this.status = status;
            if (usage != null) this.usage = usage;
            return beforeCommit.get().then(Mono.fromRunnable(() -> {
                committed = true;
                attempt.status = status;
                attempt.answer = what;
                attempt.retryAfterMs = retryAfterMs;
                attempt.usage = this.usage;
                attempt.neverSent = neverSent;
                delivered.run();
            }));
        });
    }
}
