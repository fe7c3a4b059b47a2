package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** What every {@link FlagStore} must do (in memory, Redis). */
abstract class FlagStoreContract {
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 3_600_000L);
    FlagStore store;
    String tenant;

    abstract FlagStore newStore();

    @BeforeEach
    void setUp() {
        store = newStore();
        tenant = "t-" + UUID.randomUUID();
    }

    static Flag flag(String tenant, long openedMs) {
        List<UsageSample> evidence = List.of(
                new UsageSample(T0, "free", 9500, 10, 0.95, "minute", Map.of("passed", 10L), null),
                new UsageSample(
                        T0 + 60_000, "free", 9800, 11, 0.98, "hour", Map.of("passed", 10L, "rejected", 1L), null),
                new UsageSample(
                        T0 + 120_000,
                        "free",
                        8888,
                        11,
                        0.8888,
                        "minute",
                        Map.of("passed", 11L, "delayed", 2L),
                        new Ceiling("minute", 0.93, 0.97, 304, 808, 1, 2, Ceiling.REFUSED, 1.0)));
        CeilingDetector.Finding finding = new CeilingDetector.Finding(new CeilingDetector.Run(T0, 3), evidence);
        return Flag.open(
                "flag_" + UUID.randomUUID().toString().substring(0, 8),
                tenant,
                "free",
                Instant.ofEpochMilli(openedMs),
                finding);
    }

    static FlagReview review(ReviewAction action, String note, String tier) {
        return new FlagReview("ops", Instant.ofEpochMilli(T0 + 3_600_000), action, note, tier);
    }

    @Test
    void aFlagIsStoredWithEverythingAndFoundAgain() {
        Flag f = flag(tenant, T0 + 900_000);
        assertThat(store.openIfNone(f).block()).isEqualTo(f);
        assertThat(store.find(f.id()).block()).isEqualTo(f);
        assertThat(store.latestFor(tenant).block()).isEqualTo(f);
        assertThat(store.find("flag_nope").block()).isNull();
    }

    @Test
    void aTenantHasOneOpenFlagAtMost() {
        assertThat(store.openIfNone(flag(tenant, T0)).block()).isNotNull();
        assertThat(store.openIfNone(flag(tenant, T0 + 60_000)).block()).isNull();
        assertThat(store.list(FlagStatus.OPEN, 100)
                        .filter(f -> f.tenantId().equals(tenant))
                        .count()
                        .block())
                .isEqualTo(1);
        assertThat(store.openIfNone(flag("other-" + tenant, T0)).block()).isNotNull();
    }

    @Test
    void theOpenCountFollowsFlagsOpeningAndClosing() {
        long before = store.countOpen().block(); // a shared Redis may hold other tests' flags
        Flag f = flag(tenant, T0);
        store.openIfNone(f).block();
        store.openIfNone(flag("other-" + tenant, T0)).block();
        store.openIfNone(flag(tenant, T0 + 60_000)).block(); // refused: one open flag per tenant
        assertThat(store.countOpen().block()).isEqualTo(before + 2);
        store.update(f.id(), x -> x.reviewed(review(ReviewAction.DISMISS, "batch job", null)))
                .block();
        assertThat(store.countOpen().block()).isEqualTo(before + 1);
    }

    @Test
    void racingOpenersOpenOneFlag() {
        AtomicInteger opened = new AtomicInteger();
        Flux.range(0, 20)
                .parallel(4)
                .runOn(Schedulers.parallel())
                .flatMap(i -> store.openIfNone(flag(tenant, T0 + i)))
                .doOnNext(f -> opened.incrementAndGet())
                .sequential()
                .blockLast();
        assertThat(opened.get()).isEqualTo(1);
    }

    @Test
    void aDismissalClosesTheFlagKeepsTheReviewAndAllowsANewOne() {
        Flag f = store.openIfNone(flag(tenant, T0)).block();
        Flag dismissed = store.update(f.id(), x -> x.reviewed(review(ReviewAction.DISMISS, "batch job", null)))
                .block();
        assertThat(dismissed.status()).isEqualTo(FlagStatus.DISMISSED);
        assertThat(dismissed.closedAt()).isEqualTo(Instant.ofEpochMilli(T0 + 3_600_000));
        assertThat(store.find(f.id()).block()).isEqualTo(dismissed);
        assertThat(dismissed.reviews()).singleElement().satisfies(r -> {
            assertThat(r.by()).isEqualTo("ops");
            assertThat(r.note()).isEqualTo("batch job");
        });
        Flag next = store.openIfNone(flag(tenant, T0 + 7_200_000)).block();
        assertThat(next).isNotNull();
        assertThat(store.latestFor(tenant).block()).isEqualTo(next);
    }

    @Test
    void aClosedFlagTakesCommentsButNoSecondDecision() {
        Flag f = store.openIfNone(flag(tenant, T0)).block();
        store.update(f.id(), x -> x.reviewed(review(ReviewAction.CONFIRM_MOVE_TIER, "", "pro")))
                .block();
        assertThatThrownBy(() -> store.update(f.id(), x -> x.reviewed(review(ReviewAction.DISMISS, "oops", null)))
                        .block())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already confirmed");
        Flag commented = store.update(f.id(), x -> x.reviewed(review(ReviewAction.COMMENT, "moved after a call", null)))
                .block();
        assertThat(commented.status()).isEqualTo(FlagStatus.CONFIRMED);
        assertThat(commented.reviews())
                .extracting(FlagReview::action)
                .containsExactly(ReviewAction.CONFIRM_MOVE_TIER, ReviewAction.COMMENT);
        assertThat(commented.reviews().get(0).tier()).isEqualTo("pro");
    }

    @Test
    void listingIsNewestFirstByStatusAndBounded() {
        String t2 = "u-" + tenant;
        String t3 = "v-" + tenant;
        Flag old = store.openIfNone(flag(tenant, T0 + 1)).block();
        Flag mid = store.openIfNone(flag(t2, T0 + 2)).block();
        Flag recent = store.openIfNone(flag(t3, T0 + 3)).block();
        store.update(mid.id(), x -> x.reviewed(review(ReviewAction.CONFIRM_SUSPEND, "", null)))
                .block();
        List<String> mine = List.of(old.id(), mid.id(), recent.id());
        assertThat(store.list(FlagStatus.OPEN, 1000)
                        .map(Flag::id)
                        .filter(mine::contains)
                        .collectList()
                        .block())
                .containsExactly(recent.id(), old.id());
        assertThat(store.list(FlagStatus.CONFIRMED, 1000)
                        .map(Flag::id)
                        .filter(mine::contains)
                        .collectList()
                        .block())
                .containsExactly(mid.id());
        assertThat(store.list(null, 1000)
                        .map(Flag::id)
                        .filter(mine::contains)
                        .collectList()
                        .block())
                .containsExactly(recent.id(), mid.id(), old.id());
        assertThat(store.list(null, 2).count().block()).isEqualTo(2);
    }

    @Test
    void updatingAnUnknownFlagIsEmpty() {
        assertThat(store.update("flag_unknown", x -> x).block()).isNull();
    }

    @Test
    void concurrentDecisionsCloseTheFlagOnce() {
        Flag f = store.openIfNone(flag(tenant, T0)).block();
        AtomicInteger won = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        Flux.range(0, 8)
                .parallel(4)
                .runOn(Schedulers.parallel())
                .flatMap(i -> store.update(f.id(), x -> x.reviewed(review(ReviewAction.DISMISS, "reviewer " + i, null)))
                        .doOnNext(x -> won.incrementAndGet())
                        .onErrorResume(e -> {
                            refused.incrementAndGet();
                            return Mono.empty();
                        }))
                .sequential()
                .blockLast();
        assertThat(won.get()).isEqualTo(1);
        assertThat(store.find(f.id()).block().reviews()).hasSize(1);
    }
}
