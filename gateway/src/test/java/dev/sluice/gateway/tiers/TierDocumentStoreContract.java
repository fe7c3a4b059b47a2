package dev.sluice.gateway.tiers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.quota.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/** What every {@link TierDocumentStore} must do (in memory, Redis). */
abstract class TierDocumentStoreContract {
    final FakeClock clock = new FakeClock(1_800_000_000_000L);
    TierDocumentStore store;

    abstract TierDocumentStore newStore(FakeClock clock);

    @BeforeEach
    void setUp() {
        store = newStore(clock);
    }

    @Test
    void theFirstSeedIsVersionOneAndLaterSeedsChangeNothing() {
        assertThat(store.current().block()).isNull();
        assertThat(store.version().block()).isZero();
        TierDocument seeded = store.seedIfAbsent("a: 1\n", "tiers.yaml").block();
        assertThat(seeded.version()).isEqualTo(1);
        assertThat(seeded.yaml()).isEqualTo("a: 1\n");
        assertThat(seeded.updatedBy()).isEqualTo("tiers.yaml");
        assertThat(store.seedIfAbsent("b: 2\n", "other.yaml").block()).isEqualTo(seeded);
        assertThat(store.version().block()).isEqualTo(1);
    }

    /** Redis came back empty: a replica puts back the document it runs, at its version, so versions keep rising. */
    @Test
    void aRestoredDocumentKeepsItsVersionAndNeverReplacesOneThatExists() {
        TierDocument inForce =
                new TierDocument("tiers: {edited: true}", 7, "ops", Instant.ofEpochMilli(clock.millis()));
        TierDocument restored = store.restoreIfAbsent(inForce).block(Duration.ofSeconds(5));
        assertThat(restored.version()).isEqualTo(7);
        assertThat(restored.yaml()).isEqualTo(inForce.yaml());
        assertThat(store.version().block(Duration.ofSeconds(5))).isEqualTo(7);
        TierDocument older = new TierDocument("tiers: {older: true}", 3, "other", inForce.updatedAt());
        assertThat(store.restoreIfAbsent(older).block(Duration.ofSeconds(5)).yaml())
                .isEqualTo(inForce.yaml());
        assertThat(store.replace(7, "tiers: {next: true}", "ops")
                        .block(Duration.ofSeconds(5))
                        .document()
                        .version())
                .isEqualTo(8);
    }

    @Test
    void aWriteOnTheCurrentVersionWinsAStaleOneIsRefusedWithTheCurrent() {
        store.seedIfAbsent("a: 1\n", "tiers.yaml").block();
        clock.advance(5_000);
        TierDocumentStore.WriteOutcome ok = store.replace(1, "a: 2\n", "alice").block();
        assertThat(ok.written()).isTrue();
        assertThat(ok.document().version()).isEqualTo(2);
        assertThat(ok.document().updatedBy()).isEqualTo("alice");
        assertThat(ok.document().updatedAt()).isEqualTo(clock.instant());
        assertThat(store.current().block()).isEqualTo(ok.document());

        TierDocumentStore.WriteOutcome stale = store.replace(1, "a: 3\n", "bob").block();
        assertThat(stale.written()).isFalse();
        assertThat(stale.document()).isEqualTo(ok.document());
        assertThat(store.current().block().yaml()).isEqualTo("a: 2\n");
    }

    @Test
    void ofConcurrentWritersOnOneVersionExactlyOneWins() {
        store.seedIfAbsent("a: 1\n", "tiers.yaml").block();
        AtomicInteger won = new AtomicInteger();
        Flux.range(0, 16)
                .parallel(4)
                .runOn(Schedulers.parallel())
                .flatMap(i -> store.replace(1, "a: " + i + "\n", "writer" + i))
                .filter(TierDocumentStore.WriteOutcome::written)
                .doOnNext(o -> won.incrementAndGet())
                .sequential()
                .blockLast();
        assertThat(won.get()).isEqualTo(1);
        assertThat(store.version().block()).isEqualTo(2);
    }

    @Test
    void theEtagChangesWithTheTextAndTheVersion() {
        TierDocument one = store.seedIfAbsent("a: 1\n", "tiers.yaml").block();
        TierDocument two = store.replace(1, "a: 1\n", "alice").block().document();
        assertThat(one.etag()).startsWith("\"1-").endsWith("\"");
        assertThat(two.etag()).isNotEqualTo(one.etag());
        assertThat(new TierDocument("b: 1\n", 1, "x", one.updatedAt()).etag()).isNotEqualTo(one.etag());
    }
}
