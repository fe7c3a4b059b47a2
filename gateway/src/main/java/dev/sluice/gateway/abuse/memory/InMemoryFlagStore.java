package dev.sluice.gateway.abuse.memory;

import dev.sluice.gateway.abuse.Flag;
import dev.sluice.gateway.abuse.FlagStatus;
import dev.sluice.gateway.abuse.FlagStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The single-instance store: a few maps under one lock (flags are rare; reviews rarer). */
public final class InMemoryFlagStore implements FlagStore {
    private final Map<String, Flag> flags = new LinkedHashMap<>();
    private final Map<String, String> openByTenant = new HashMap<>();
    private final Map<String, String> latestByTenant = new HashMap<>();

    @Override
    public Mono<Flag> openIfNone(Flag flag) {
        return Mono.fromSupplier(() -> {
            if (!flag.isOpen()) throw new IllegalArgumentException("a new flag is open");
            synchronized (this) {
                if (openByTenant.containsKey(flag.tenantId())) return null;
                if (flags.containsKey(flag.id())) throw new IllegalArgumentException("duplicate flag id " + flag.id());
                flags.put(flag.id(), flag);
                openByTenant.put(flag.tenantId(), flag.id());
                latestByTenant.put(flag.tenantId(), flag.id());
                return flag;
            }
        });
    }

    @Override
    public Mono<Flag> find(String id) {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                return flags.get(id);
            }
        });
    }

    @Override
    public Flux<Flag> list(FlagStatus status, int limit) {
        return Flux.defer(() -> {
            List<Flag> out = new ArrayList<>();
            synchronized (this) {
                for (Flag f : flags.values()) if (status == null || f.status() == status) out.add(f);
            }
            out.sort(Comparator.comparing(Flag::openedAt).reversed().thenComparing(Flag::id));
            return Flux.fromIterable(out.subList(0, Math.min(limit, out.size())));
        });
    }

    @Override
    public Mono<Long> countOpen() {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                return (long) openByTenant.size();
            }
        });
    }

    @Override
    public Mono<Flag> latestFor(String tenantId) {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                String id = latestByTenant.get(tenantId);
                return id == null ? null : flags.get(id);
            }
        });
    }

    @Override
    public Mono<Flag> update(String id, UnaryOperator<Flag> change) {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                Flag current = flags.get(id);
                if (current == null) return null;
                Flag next = change.apply(current);
                if (!next.id().equals(id) || !next.tenantId().equals(current.tenantId())) {
                    throw new IllegalArgumentException("an update keeps the flag's id and tenant");
                }
                flags.put(id, next);
                if (!next.isOpen()) openByTenant.remove(next.tenantId(), id);
                return next;
            }
        });
    }
}
