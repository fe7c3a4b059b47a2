package dev.sluice.gateway.drafts;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/** What every {@link TierDraftStore} must do (in memory, Redis). */
abstract class TierDraftStoreContract {
    static final Instant T0 = Instant.ofEpochMilli(1_800_000_000_000L);
    static final Duration WAIT = Duration.ofSeconds(5);
    TierDraftStore store;

    abstract TierDraftStore newStore();

    @BeforeEach
    void setUp() {
        store = newStore();
    }

    @Test
    void noDraftAtFirstThenASavedOneWithItsAuthorAndTime() {
        assertThat(store.current().block(WAIT)).isNull();
        assertThat(store.version().block(WAIT)).isZero();
        TierDraftStore.Outcome saved = store.save(-1, "a: 1\n", "alice", T0).block(WAIT);
        assertThat(saved.written()).isTrue();
        assertThat(saved.draft()).isEqualTo(new TierDraft("a: 1\n", 1, "alice", T0, false, null));
        assertThat(store.current().block(WAIT)).isEqualTo(saved.draft());
        assertThat(store.version().block(WAIT)).isEqualTo(1);
    }

    @Test
    void aSaveOnTheVersionReadWinsAStaleOneIsRefusedWithTheCurrent() {
        store.save(-1, "a: 1\n", "alice", T0).block(WAIT);
        TierDraft second =
                store.save(1, "a: 2\n", "bob", T0.plusSeconds(1)).block(WAIT).draft();
        assertThat(second.version()).isEqualTo(2);
        TierDraftStore.Outcome stale =
                store.save(1, "a: 3\n", "carol", T0.plusSeconds(2)).block(WAIT);
        assertThat(stale.written()).isFalse();
        assertThat(stale.draft()).isEqualTo(second);
    }

    @Test
    void shadowOnSetsSinceOnceOffClearsItEachChangeRaisesTheVersion() {
        assertThat(store.shadow(true, T0).block(WAIT).written())
                .as("no draft: nothing to shadow")
                .isFalse();
        store.save(-1, "a: 1\n", "alice", T0).block(WAIT);
        TierDraft on = store.shadow(true, T0.plusSeconds(5)).block(WAIT).draft();
        assertThat(on.shadow()).isTrue();
        assertThat(on.shadowSince()).isEqualTo(T0.plusSeconds(5));
        assertThat(on.version()).isEqualTo(2);
        assertThat(on.savedAt()).as("the text's time, not the switch's").isEqualTo(T0);
        TierDraft again = store.shadow(true, T0.plusSeconds(9)).block(WAIT).draft();
        assertThat(again).as("on while on: nothing changes").isEqualTo(on);
        TierDraft resaved =
                store.save(-1, "a: 2\n", "bob", T0.plusSeconds(20)).block(WAIT).draft();
        assertThat(resaved.shadow()).as("a new text stays in shadow").isTrue();
        assertThat(resaved.shadowSince()).as("but its shadow starts again").isEqualTo(T0.plusSeconds(20));
        TierDraft off = store.shadow(false, T0.plusSeconds(30)).block(WAIT).draft();
        assertThat(off.shadow()).isFalse();
        assertThat(off.shadowSince()).isNull();
        assertThat(off.version()).isEqualTo(4);
        assertThat(store.current().block(WAIT)).isEqualTo(off);
    }

    @Test
    void aDeletedDraftIsGoneButItsVersionIsNeverReused() {
        assertThat(store.delete(-1).block(WAIT).written()).isFalse();
        store.save(-1, "a: 1\n", "alice", T0).block(WAIT);
        store.shadow(true, T0).block(WAIT);
        assertThat(store.delete(1).block(WAIT).written()).as("stale version").isFalse();
        TierDraftStore.Outcome deleted = store.delete(2).block(WAIT);
        assertThat(deleted.written()).isTrue();
        assertThat(deleted.draft()).isNull();
        assertThat(store.current().block(WAIT)).isNull();
        assertThat(store.version().block(WAIT)).isEqualTo(3);
        TierDraft next = store.save(-1, "b: 1\n", "bob", T0).block(WAIT).draft();
        assertThat(next.version()).isEqualTo(4);
        assertThat(next.shadow()).as("a new draft starts out of shadow").isFalse();
    }

    @Test
    void ofConcurrentSavesOnOneVersionExactlyOneWins() {
        store.save(-1, "a: 0\n", "seed", T0).block(WAIT);
        AtomicInteger won = new AtomicInteger();
        Flux.range(0, 16)
                .parallel(4)
                .runOn(Schedulers.parallel())
                .flatMap(i -> store.save(1, "a: " + i + "\n", "writer" + i, T0))
                .filter(TierDraftStore.Outcome::written)
                .doOnNext(o -> won.incrementAndGet())
                .sequential()
                .blockLast(WAIT);
        assertThat(won.get()).isEqualTo(1);
        assertThat(store.version().block(WAIT)).isEqualTo(2);
    }

    @Test
    void theEtagChangesWithTheTextAndTheVersion() {
        TierDraft one = store.save(-1, "a: 1\n", "x", T0).block(WAIT).draft();
        TierDraft two = store.save(-1, "a: 1\n", "x", T0).block(WAIT).draft();
        assertThat(one.etag()).startsWith("\"d1-").endsWith("\"");
        assertThat(two.etag()).isNotEqualTo(one.etag());
    }
}
