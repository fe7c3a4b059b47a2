package dev.sluice.gateway.abuse.memory;

import dev.sluice.gateway.abuse.UsageHistory;
import dev.sluice.gateway.abuse.UsageSample;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A ring of points per tenant, oldest dropped first: bounded by the retention (in minutes,
 * and so in points), and by time, so a tenant that comes back after days starts afresh.
 */
public final class InMemoryUsageHistory implements UsageHistory {
    private final ConcurrentHashMap<String, ArrayDeque<UsageSample>> series = new ConcurrentHashMap<>();

    @Override
    public Mono<Void> append(String tenantId, UsageSample sample, int retentionMinutes) {
        return Mono.fromRunnable(() -> {
            ArrayDeque<UsageSample> ring = series.computeIfAbsent(tenantId, t -> new ArrayDeque<>());
            synchronized (ring) {
                List<UsageSample> later = new ArrayList<>();
                while (!ring.isEmpty() && ring.peekLast().minuteStartMs() >= sample.minuteStartMs()) {
                    UsageSample last = ring.pollLast();
                    if (last.minuteStartMs() > sample.minuteStartMs()) later.add(0, last);
                }
                ring.addLast(sample);
                ring.addAll(later);
                long oldest = ring.peekLast().minuteStartMs() - (retentionMinutes - 1) * 60_000L;
                while (ring.size() > retentionMinutes || ring.peekFirst().minuteStartMs() < oldest) ring.pollFirst();
            }
        });
    }

    @Override
    public Flux<UsageSample> since(String tenantId, long fromMs) {
        return Flux.defer(() -> {
            ArrayDeque<UsageSample> ring = series.get(tenantId);
            if (ring == null) return Flux.empty();
            List<UsageSample> out = new ArrayList<>();
            synchronized (ring) {
                for (UsageSample s : ring) if (s.minuteStartMs() >= fromMs) out.add(s);
            }
            return Flux.fromIterable(out);
        });
    }
}
