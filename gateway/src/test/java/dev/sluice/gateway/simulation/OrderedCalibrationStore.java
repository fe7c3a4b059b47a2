package dev.sluice.gateway.simulation;

import dev.sluice.gateway.dispatch.calibration.CalibrationStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * The calibration store with its answer in a fixed order: replicas in the order they first
 * shared. The in-memory store answers {@code Map.copyOf}, whose iteration order changes from one
 * JVM to the next, and ProviderCalibration adds the other replicas' ratios in that order: with
 * more than two others, floating-point sums in another order can differ in the last bit, and a
 * charge rounded up with them by a token. The replicas' names are random (UUIDs): the order they
 * first share in is the run's own, so the same in every replay.
 */
final class OrderedCalibrationStore implements CalibrationStore {
    private final CalibrationStore store;
    private final List<String> order = new ArrayList<>();

    OrderedCalibrationStore(CalibrationStore store) {
        this.store = store;
    }

    @Override
    public Mono<Map<String, Entry>> share(String key, String replica, Entry mine, long maxAgeMs) {
        if (!order.contains(replica)) order.add(replica);
        return store.share(key, replica, mine, maxAgeMs).map(entries -> {
            Map<String, Entry> ordered = new LinkedHashMap<>();
            for (String r : order) if (entries.containsKey(r)) ordered.put(r, entries.get(r));
            return ordered;
        });
    }
}
