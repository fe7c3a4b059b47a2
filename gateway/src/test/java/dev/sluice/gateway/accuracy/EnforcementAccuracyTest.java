package dev.sluice.gateway.accuracy;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class EnforcementAccuracyTest {
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final EnforcementAccuracy accuracy = new EnforcementAccuracy(meters, Clock.systemUTC());

    double refusals() {
        return meters.find(EnforcementAccuracy.REFUSALS).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    /** Requests and refusals from many threads at once: every refusal gets exactly one verdict, nothing is left behind. */
    @Test
    void concurrentRequestsAndRefusalsEachGetOneVerdictAndLeaveNothing() throws Exception {
        int threads = 8;
        int rounds = 2_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            SplittableRandom random = new SplittableRandom(t);
            done.add(CompletableFuture.runAsync(
                    () -> {
                        try {
                            start.await();
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                        for (int i = 0; i < rounds; i++) {
                            String tenant = "tenant-" + random.nextInt(4); // threads share tenants
                            Object call = new Object();
                            accuracy.opened(tenant, call, 1_000);
                            accuracy.refused(tenant, "free", 1 + random.nextInt(2_000), 60_000);
                            if (random.nextBoolean()) accuracy.refunded(tenant, call);
                            else accuracy.settled(tenant, "free", "default", call, 1_000, random.nextInt(1_500));
                        }
                    },
                    pool));
        }
        start.countDown();
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get();
        pool.shutdown();
        assertThat(accuracy.pendingVerdicts()).isZero();
        assertThat(refusals()).isEqualTo(threads * rounds);
        assertThat(meters.find(EnforcementAccuracy.SETTLED_OF_RESERVED).summary())
                .isNotNull();
    }

    @Test
    void everySeriesIsThereAtZeroFromStart() {
        accuracy.registerMeters(List.of("free", "pro"), List.of("a", "b"));
        assertThat(meters.find(EnforcementAccuracy.SETTLED_OF_RESERVED).summaries())
                .hasSize(4);
        assertThat(meters.find(EnforcementAccuracy.REFUSALS).counters()).hasSize(6);
        assertThat(meters.find(EnforcementAccuracy.OVERSHOOT).counters()).hasSize(2);
        assertThat(meters.find(EnforcementAccuracy.PROVIDER_TOKENS).counters()).hasSize(2);
        assertThat(refusals()).isZero();
    }
}
