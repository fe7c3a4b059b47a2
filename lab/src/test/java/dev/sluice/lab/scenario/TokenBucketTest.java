package dev.sluice.lab.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Seed 000's bucket and case 3's two-bucket limiter, on time passed in. */
class TokenBucketTest {

    @Test
    void aNewBucketLetsItsCapacityThroughAtOnceThenRefillsAtItsRate() {
        TokenBucket b = new TokenBucket(5, 2, 0);
        for (int i = 0; i < 5; i++)
            assertThat(b.tryTake(0)).as("burst page %d", i).isTrue();
        assertThat(b.tryTake(0)).isFalse();
        assertThat(b.retryAfterMs(0)).isEqualTo(500); // 2 a second: one token in 500 ms
        assertThat(b.tryTake(499)).isFalse();
        assertThat(b.tryTake(500)).isTrue();
        // A long pause refills to the capacity, never past it.
        assertThat(b.tokens(60_000)).isEqualTo(5.0);
    }

    @Test
    void timeGoingBackwardsNeverMintsTokens() {
        TokenBucket b = new TokenBucket(1, 1, 1_000);
        assertThat(b.tryTake(1_000)).isTrue();
        assertThat(b.tryTake(0)).isFalse();
        assertThat(b.tokens(1_000)).isZero();
    }

    @Test
    void badShapesAreRefusedWithTheirValue() {
        assertThatThrownBy(() -> new TokenBucket(0.5, 1, 0))
                .hasMessageContaining("capacity must be at least 1, was 0.5");
        assertThatThrownBy(() -> new TokenBucket(5, 0, 0))
                .hasMessageContaining("refill must be a positive rate, was 0.0");
    }

    @Test
    void aPageTakesFromItsUsersBucketAndTheGlobalOneOrFromNeither() {
        // Three users with 5 pages of burst each, a global bucket of 12: the third user gets 2.
        PageLimiter limiter = new PageLimiter(new PageLimiter.Shape(5, 2), new PageLimiter.Shape(12, 25), 0);
        int[] passed = new int[3];
        for (int user = 0; user < 3; user++) {
            for (int page = 0; page < 100; page++) if (limiter.tryAcquire(user, 0)) passed[user]++;
        }
        assertThat(passed).containsExactly(5, 5, 2);
        // The third user's refusals by the global bucket gave its own tokens back: after the global
        // bucket refills (25 a second), it still has its remaining 3 of burst.
        int later = 0;
        for (int page = 0; page < 100; page++) if (limiter.tryAcquire(2, 1_000)) later++;
        assertThat(later).isEqualTo(5); // 3 left + 2 refilled in that second, capped by its capacity
    }
}
