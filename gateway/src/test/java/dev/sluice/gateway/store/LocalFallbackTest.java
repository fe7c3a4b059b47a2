package dev.sluice.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The fallback shared by the quota and the provider budget: each recovery swaps in a fresh local
 * store first, then hands over every key served on the old one, once, stamped with the recovery's
 * time; without a way to make a fresh store there is no hand-over at all.
 */
class LocalFallbackTest {
    static final long NOW = 1_900_000_000_000L;

    final Clock clock = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);
    final StoreState state = new StoreState(true, clock::millis);
    final AtomicInteger made = new AtomicInteger();
    final List<String> handedOver = new ArrayList<>();

    LocalFallback<String, String, Integer> fallback(boolean fresh) {
        return new LocalFallback<>(
                "store-0",
                fresh ? () -> "store-" + made.incrementAndGet() : null,
                state,
                clock,
                (spent, key, readBack, nowMs) ->
                        handedOver.add(spent + " " + key + " " + readBack + " @" + (nowMs - NOW)));
    }

    void outageAndRecovery() {
        state.failed(new IllegalStateException("Redis out"));
        state.answered();
    }

    @Test
    void aRecoveryHandsOverEachKeyServedOnTheOldStoreOnceAndStartsAFreshOne() {
        LocalFallback<String, String, Integer> fallback = fallback(true);
        assertThat(fallback.serve("a", 1)).isEqualTo("store-0");
        fallback.serve("b", 2);
        fallback.serve("a", 3);

        outageAndRecovery();
        assertThat(handedOver).containsExactlyInAnyOrder("store-0 a 3 @0", "store-0 b 2 @0");
        assertThat(fallback.local()).isEqualTo("store-1");

        handedOver.clear();
        outageAndRecovery();
        assertThat(handedOver).as("nothing served since: nothing handed over").isEmpty();
        assertThat(fallback.local()).isEqualTo("store-2");
    }

    @Test
    void withoutFreshStoresTheSameLocalStoreServesEveryOutageAndNothingIsHandedOver() {
        LocalFallback<String, String, Integer> fallback = fallback(false);
        assertThat(fallback.serve("a", 1)).isEqualTo("store-0");

        outageAndRecovery();
        assertThat(handedOver).isEmpty();
        assertThat(fallback.local()).isEqualTo("store-0");
    }
}
