package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.Job;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.web.server.ServerWebExchange;

/**
 * One request's way through its route: the budgets that can take it (in route order, each
 * with the job as it charges), the providers that failed it, and the original body (each
 * provider may know the model by its own name).
 */
final class RoutedRequest {
    final ServerWebExchange exchange;
    final GatewayFilterChain chain;
    final String model;
    final byte[] body;
    final long deadlineMs;
    final List<ProviderDispatcher.Candidate> candidates = new ArrayList<>(2);
    final Map<String, ProviderSettings> providers = new HashMap<>(4);
    final Set<String> tried = new HashSet<>(2);
    final AtomicLong waited = new AtomicLong();
    /** When the current attempt's lease was handed over (this gateway's clock): one attempt at a time. */
    volatile long handedOverAtMs = Long.MIN_VALUE;

    int spilled;
    /** Whether an attempt made a connection (the provider may have processed the prompt). */
    volatile boolean reachedAProvider;

    RoutedRequest(ServerWebExchange exchange, GatewayFilterChain chain, String model, byte[] body, long deadlineMs) {
        this.exchange = exchange;
        this.chain = chain;
        this.model = model;
        this.body = body;
        this.deadlineMs = deadlineMs;
    }

    void add(ProviderSettings provider, ProviderDispatcher dispatcher, Job job) {
        candidates.add(new ProviderDispatcher.Candidate(dispatcher, job));
        providers.put(dispatcher.key(), provider);
    }

    /** The route less the providers that failed this request; all of it when every one has. */
    List<ProviderDispatcher.Candidate> untried() {
        if (tried.isEmpty()) return candidates;
        List<ProviderDispatcher.Candidate> left = new ArrayList<>(candidates.size());
        for (ProviderDispatcher.Candidate c : candidates)
            if (!tried.contains(c.dispatcher().provider())) left.add(c);
        return left.isEmpty() ? candidates : left;
    }

    boolean hasAnotherThan(String provider) {
        for (ProviderDispatcher.Candidate c : candidates) {
            String p = c.dispatcher().provider();
            if (!p.equals(provider) && !tried.contains(p)) return true;
        }
        return false;
    }

    ProviderDispatcher dispatcherOf(Lease lease) {
        for (ProviderDispatcher.Candidate c : candidates)
            if (c.dispatcher().key().equals(lease.budgetKey())) return c.dispatcher();
        throw new IllegalStateException("a lease of budget " + lease.budgetKey() + " outside the route");
    }

    ProviderSettings providerOf(ProviderDispatcher dispatcher) {
        return providers.get(dispatcher.key());
    }

    long waitLeftMs(long nowMs) {
        return Math.max(0, deadlineMs - nowMs);
    }
}
