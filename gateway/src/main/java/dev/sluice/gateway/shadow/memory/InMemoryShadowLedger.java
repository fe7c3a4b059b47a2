package dev.sluice.gateway.shadow.memory;

import dev.sluice.gateway.shadow.ShadowLedgerStore;
import dev.sluice.gateway.shadow.ShadowMinute;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The ledger in this process: tenant-minutes by minute, the oldest dropped past the retention. */
public final class InMemoryShadowLedger implements ShadowLedgerStore {
    private record Key(String tenantId, String tier, long version) {}

    private final Clock clock;
    private final TreeMap<Long, Map<Key, ShadowMinute>> minutes = new TreeMap<>();

    public InMemoryShadowLedger(Clock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized Mono<Void> add(Collection<ShadowMinute> increments) {
        for (ShadowMinute m : increments)
            minutes.computeIfAbsent(m.minuteStartMs(), k -> new HashMap<>())
                    .merge(new Key(m.tenantId(), m.tier(), m.draftVersion()), m, InMemoryShadowLedger::sum);
        minutes.headMap(clock.millis() - RETENTION_MS).clear();
        return Mono.empty();
    }

    @Override
    public synchronized Flux<ShadowMinute> since(long fromMs) {
        List<ShadowMinute> out = new ArrayList<>();
        minutes.tailMap(fromMs, true).values().forEach(m -> out.addAll(m.values()));
        return Flux.fromIterable(out);
    }

    static ShadowMinute sum(ShadowMinute a, ShadowMinute b) {
        return new ShadowMinute(
                a.minuteStartMs(),
                a.tenantId(),
                a.tier(),
                a.draftVersion(),
                sum(a.live(), b.live()),
                sum(a.draft(), b.draft()));
    }

    private static Map<String, Long> sum(Map<String, Long> a, Map<String, Long> b) {
        Map<String, Long> out = new HashMap<>(a);
        b.forEach((k, v) -> out.merge(k, v, Long::sum));
        return out;
    }
}
