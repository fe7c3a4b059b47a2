package dev.sluice.gateway.dispatch.calibration.memory;

import dev.sluice.gateway.dispatch.calibration.CalibrationStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;

/** The single-instance store: one map per budget, the same rules as the Redis hash. */
public final class InMemoryCalibrationStore implements CalibrationStore {
    private final ConcurrentHashMap<String, Map<String, Entry>> budgets = new ConcurrentHashMap<>();

    @Override
    public Mono<Map<String, Entry>> share(String key, String replica, Entry mine, long maxAgeMs) {
        return Mono.fromSupplier(() -> {
            Map<String, Entry> entries = budgets.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
            entries.put(replica, mine);
            long oldest = mine.atMs() - maxAgeMs;
            entries.values().removeIf(e -> e.atMs() < oldest);
            return Map.copyOf(entries);
        });
    }
}
