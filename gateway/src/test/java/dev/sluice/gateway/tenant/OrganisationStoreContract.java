package dev.sluice.gateway.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.WindowLimit;
import java.time.ZoneId;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link OrganisationStore} must do (in memory, Redis). */
abstract class OrganisationStoreContract {
    OrganisationStore store;
    String id;

    abstract OrganisationStore newStore();

    @BeforeEach
    void setUp() {
        store = newStore();
        id = "o-" + UUID.randomUUID();
    }

    static final List<WindowLimit> WINDOWS = List.of(
            new WindowLimit("minute", 60, 10_000, 100), new WindowLimit("day", 86_400, 1_000_000, Long.MAX_VALUE));
    static final SpendBudget SPEND = new SpendBudget(10_000, 200_000, ZoneId.of("Europe/Paris"));

    @Test
    void anOrganisationIsCreatedOnceFoundAndListed() {
        Organisation acme = new Organisation(id, "Acme Inc.", WINDOWS, SPEND);
        assertThat(store.create(acme).block()).isTrue();
        assertThat(store.create(new Organisation(id, "Other", List.of(), null)).block())
                .as("an existing id")
                .isFalse();
        assertThat(store.findById(id).block()).isEqualTo(acme);
        assertThat(store.findAll().collectList().block()).contains(acme);
        assertThat(store.findById("nobody-" + id).block()).isNull();
    }

    @Test
    void itsWindowsAndBudgetsAreReplacedAndRemoved() {
        store.create(new Organisation(id, null, WINDOWS, SPEND)).block();
        assertThat(store.findById(id).block().name()).as("no name: its id").isEqualTo(id);
        Organisation bare = new Organisation(id, "Renamed", List.of(), SpendBudget.NONE);
        store.save(bare).block();
        assertThat(store.findById(id).block()).isEqualTo(bare);
        assertThat(store.findById(id).block().caps()).isFalse();
    }

    @Test
    void aDeletedOrganisationIsGone() {
        store.create(new Organisation(id, "Acme", WINDOWS, SPEND)).block();
        assertThat(store.delete(id).block()).isTrue();
        assertThat(store.findById(id).block()).isNull();
        assertThat(store.findAll().collectList().block()).noneMatch(o -> o.id().equals(id));
        assertThat(store.delete(id).block()).isFalse();
    }
}
