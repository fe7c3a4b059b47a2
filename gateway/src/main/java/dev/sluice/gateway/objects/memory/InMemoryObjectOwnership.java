package dev.sluice.gateway.objects.memory;

import dev.sluice.gateway.objects.ObjectOwnership;
import dev.sluice.gateway.objects.ObjectRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;

/** The single-instance store (the quickstart): records by object id, for the life of the process. */
public final class InMemoryObjectOwnership implements ObjectOwnership {
    private final Map<String, ObjectRecord> records = new ConcurrentHashMap<>();

    @Override
    public Mono<ObjectRecord> claim(String objectId, ObjectRecord record) {
        return Mono.fromSupplier(() -> {
            ObjectRecord earlier = records.putIfAbsent(objectId, record);
            return earlier == null ? record : earlier;
        });
    }

    @Override
    public Mono<Void> update(String objectId, ObjectRecord record) {
        return Mono.fromRunnable(() ->
                records.computeIfPresent(objectId, (id, held) -> held.owner().equals(record.owner()) ? record : held));
    }

    @Override
    public Mono<ObjectRecord> owner(String objectId) {
        return Mono.fromSupplier(() -> records.get(objectId));
    }

    @Override
    public Mono<Map<String, ObjectRecord>> owners(List<String> objectIds) {
        return Mono.fromSupplier(() -> {
            Map<String, ObjectRecord> found = new HashMap<>();
            for (String id : objectIds) {
                ObjectRecord r = records.get(id);
                if (r != null) found.put(id, r);
            }
            return found;
        });
    }
}
