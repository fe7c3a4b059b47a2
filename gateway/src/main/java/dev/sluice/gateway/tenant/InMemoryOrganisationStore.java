package dev.sluice.gateway.tenant;

import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The single-instance store: organisations by id. */
public final class InMemoryOrganisationStore implements OrganisationStore {
    private final Map<String, Organisation> organisations = new ConcurrentHashMap<>();

    @Override
    public Mono<Organisation> findById(String id) {
        return Mono.fromSupplier(() -> organisations.get(id));
    }

    @Override
    public Flux<Organisation> findAll() {
        return Flux.defer(() -> Flux.fromIterable(organisations.values())).sort(Comparator.comparing(Organisation::id));
    }

    @Override
    public Mono<Boolean> create(Organisation organisation) {
        return Mono.fromSupplier(() -> organisations.putIfAbsent(organisation.id(), organisation) == null);
    }

    @Override
    public Mono<Void> save(Organisation organisation) {
        return Mono.fromRunnable(() -> organisations.put(organisation.id(), organisation));
    }

    @Override
    public Mono<Boolean> delete(String id) {
        return Mono.fromSupplier(() -> organisations.remove(id) != null);
    }
}
