package dev.sluice.gateway.degrade;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.api.Stage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The request path's ladder draws its jitter on each deciding thread's own generator; a test's seed still fixes it. */
class DegradationLadderJitterTest {
    static final int THREADS = 4;
    static final int DRAWS = 20_000;

    @Test
    void theRequestPathsLadderDecidesOnManyThreadsAtOnceWithinItsJitter() throws Exception {
        DegradationLadder ladder = new DegradationLadder();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<long[]>> runs = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                runs.add(pool.submit(() -> {
                    start.await();
                    long[] delays = new long[DRAWS];
                    for (int i = 0; i < DRAWS; i++) {
                        LadderDecision d = delayed(ladder);
                        assertThat(d.stage()).isEqualTo(Stage.DELAYED);
                        delays[i] = d.delayMs();
                    }
                    return delays;
                }));
            }
            start.countDown();
            List<long[]> all = new ArrayList<>();
            for (Future<long[]> run : runs) all.add(run.get(60, TimeUnit.SECONDS));
            for (long[] delays : all) {
                assertThat(Arrays.stream(delays).min().orElseThrow()).isGreaterThanOrEqualTo(200);
                assertThat(Arrays.stream(delays).max().orElseThrow()).isLessThanOrEqualTo(800);
                // Spread over the whole range on every thread: each draws from a generator of its own.
                assertThat(Arrays.stream(delays).distinct().count()).isGreaterThan(550);
            }
            assertThat(all.get(0)).as("two threads do not draw one sequence").isNotEqualTo(all.get(1));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aSeededLadderStillDecidesTheSameDelays() {
        DegradationLadder a = new DegradationLadder(new SplittableRandom(7));
        DegradationLadder b = new DegradationLadder(new SplittableRandom(7));
        for (int i = 0; i < 100; i++) {
            LadderDecision x = delayed(a);
            LadderDecision y = delayed(b);
            assertThat(x).isEqualTo(y);
        }
    }

    /** A refused pro request that the ladder delays: the decision whose jitter is drawn. */
    private static LadderDecision delayed(DegradationLadder ladder) {
        return ladder.decide(
                DegradationLadderTest.refused(0),
                DegradationLadderTest.tier(true),
                DegradationLadderTest.LADDER,
                "gpt-4o",
                false,
                true);
    }
}
