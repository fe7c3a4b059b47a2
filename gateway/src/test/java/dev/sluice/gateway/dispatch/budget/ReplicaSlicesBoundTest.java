package dev.sluice.gateway.dispatch.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.redis.RedisProviderBudgetStore;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The bound, with several replicas on one real Redis, each spending from its own slice: however
 * the slices are cut, the replicas together never admit more requests or tokens than the
 * minute allows, nor more calls at once than the in-flight limit; and when every call has ended
 * and the replicas close, nothing is held and only what was spent stays counted.
 */
class ReplicaSlicesBoundTest {
    static final Duration T = Duration.ofSeconds(10);

    @Test
    void fourReplicasTogetherNeverExceedTheLimitsAndLeaveNothingHeld() {
        String key = "bound" + UUID.randomUUID() + ":gpt-4o";
        BudgetLimits limits = new BudgetLimits(400, 60_000, 6, 120_000);
        Scheduler timer = Schedulers.newParallel("slices-test", 2);
        List<ReplicaLeases> replicas = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            replicas.add(new ReplicaLeases(
                    new RedisProviderBudgetStore(TestRedisTemplates.template()),
                    Duration.ofMillis(500),
                    Duration.ofSeconds(10),
                    Duration.ofMillis(5),
                    16,
                    Clock.systemUTC(),
                    timer));
        }
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxInFlight = new AtomicInteger();
        AtomicLong tokens = new AtomicLong();
        AtomicInteger requests = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        try {
            Flux.range(0, 1_200)
                    .parallel(12)
                    .runOn(Schedulers.boundedElastic())
                    .flatMap(i -> {
                        ReplicaLeases r = replicas.get(i % 4);
                        long t = 50 + ThreadLocalRandom.current().nextLong(150);
                        String id = "c" + i;
                        return r.tryAcquire(key, limits, Acquire.of(t, id)).flatMap(d -> {
                            if (!d.admitted()) {
                                refused.incrementAndGet();
                                return Mono.empty();
                            }
                            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                            tokens.addAndGet(t);
                            requests.incrementAndGet();
                            return Mono.delay(Duration.ofMillis(
                                            ThreadLocalRandom.current().nextInt(3)))
                                    .then(Mono.fromRunnable(inFlight::decrementAndGet))
                                    .then(r.release(key, id));
                        });
                    })
                    .sequential()
                    .blockLast(Duration.ofSeconds(60));
        } finally {
            replicas.forEach(r -> r.flush(Duration.ofSeconds(5)));
            timer.dispose();
        }
        assertThat(refused.get()).as("the limits were reached").isPositive();
        assertThat(maxInFlight.get()).as("calls at once, all replicas").isLessThanOrEqualTo(6);
        assertThat(requests.get()).isLessThanOrEqualTo(400);
        assertThat(tokens.get()).isLessThanOrEqualTo(60_000);
        BudgetSnapshot s = new RedisProviderBudgetStore(TestRedisTemplates.template())
                .snapshot(key, limits)
                .block(T);
        assertThat(s.inFlight()).as("no slot left held").isZero();
        assertThat(s.usedRequests()).as("the slices' rest given back").isEqualTo(requests.get());
        assertThat(s.usedTokens()).isEqualTo(tokens.get());
    }
}
