package dev.sluice.gateway.objects;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link ObjectOwnership} must do (in memory, Redis). */
abstract class ObjectOwnershipContract {
    static final Duration WAIT = Duration.ofSeconds(5);
    ObjectOwnership store;
    String run;

    abstract ObjectOwnership newStore();

    @BeforeEach
    void setUp() {
        store = newStore();
        run = UUID.randomUUID().toString();
    }

    String id(String name) {
        return name + "-" + run;
    }

    @Test
    void aClaimedIdIsItsOwners() {
        ObjectRecord a = ObjectRecord.ownedBy("tenant-a");
        assertThat(store.claim(id("file"), a).block(WAIT)).isEqualTo(a);
        assertThat(store.owner(id("file")).block(WAIT)).isEqualTo(a);
    }

    @Test
    void anIdNobodyClaimedHasNoOwner() {
        assertThat(store.owner(id("never")).block(WAIT)).isNull();
        assertThat(store.owners(List.of(id("never"))).block(WAIT)).isEmpty();
    }

    @Test
    void aSecondClaimNeverTakesTheIdFromItsOwner() {
        ObjectRecord a = ObjectRecord.ownedBy("tenant-a");
        store.claim(id("file"), a).block(WAIT);
        assertThat(store.claim(id("file"), ObjectRecord.ownedBy("tenant-b")).block(WAIT))
                .isEqualTo(a);
        assertThat(store.owner(id("file")).block(WAIT)).isEqualTo(a);
    }

    @Test
    void aBatchFilesEstimateIsKeptWithItsOwner() {
        ObjectRecord r = new ObjectRecord("tenant-a", new BatchFileEstimate("gpt-4o-mini", 20_000, 2_000_000, 2_000));
        store.claim(id("file"), r).block(WAIT);
        assertThat(store.owner(id("file")).block(WAIT)).isEqualTo(r);
    }

    @Test
    void anOwnerUpdatesItsRecordAndNobodyElseCan() {
        ObjectRecord a = ObjectRecord.ownedBy("tenant-a");
        store.claim(id("resp"), a).block(WAIT);
        store.update(id("resp"), a.withContext(4_010)).block(WAIT);
        assertThat(store.owner(id("resp")).block(WAIT)).isEqualTo(a.withContext(4_010));

        store.update(id("resp"), ObjectRecord.ownedBy("tenant-b").withContext(1))
                .block(WAIT);
        assertThat(store.owner(id("resp")).block(WAIT)).isEqualTo(a.withContext(4_010));
        store.update(id("unclaimed"), a.withContext(5)).block(WAIT);
        assertThat(store.owner(id("unclaimed")).block(WAIT))
                .as("an update claims nothing")
                .isNull();
    }

    @Test
    void theOwnersOfAPageAreReadInOneCall() {
        store.claim(id("a"), ObjectRecord.ownedBy("tenant-a")).block(WAIT);
        store.claim(id("b"), ObjectRecord.ownedBy("tenant-b")).block(WAIT);
        Map<String, ObjectRecord> owners =
                store.owners(List.of(id("a"), id("b"), id("c"), id("a"))).block(WAIT);
        assertThat(owners)
                .containsOnly(
                        Map.entry(id("a"), ObjectRecord.ownedBy("tenant-a")),
                        Map.entry(id("b"), ObjectRecord.ownedBy("tenant-b")));
        assertThat(store.owners(List.of()).block(WAIT)).isEmpty();
    }

    @Test
    void idsWithBracesStayApart() {
        store.claim("{x}" + run, ObjectRecord.ownedBy("tenant-a")).block(WAIT);
        assertThat(store.owner("x" + run).block(WAIT)).isNull();
        assertThat(store.owner("{x}" + run).block(WAIT)).isEqualTo(ObjectRecord.ownedBy("tenant-a"));
    }
}
