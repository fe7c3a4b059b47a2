package dev.sluice.gateway.dispatch.calibration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.gateway.dispatch.calibration.memory.InMemoryCalibrationStore;
import dev.sluice.gateway.quota.FakeClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** Replicas share what they learned through the store, at most every sync interval, and do without it. */
class ProviderCalibrationTest {
    private static final String KEY = "default:gpt-4o-mini";
    private static final TokenCalibration.Settings S = new TokenCalibration.Settings(1.0, 0.5, 2.0, 5, 0.1);
    private final FakeClock clock = new FakeClock(1_000_000);

    private ProviderCalibration replica(CalibrationStore store, MeterRegistry meters) {
        return new ProviderCalibration(
                store, S, Duration.ofSeconds(5), Duration.ofMinutes(10), Duration.ofSeconds(1), clock, meters);
    }

    @Test
    void theGaugeIsThereFromRegistrationAtTheDefaultAndFollowsTheAnswers() {
        MeterRegistry meters = new SimpleMeterRegistry();
        ProviderCalibration c = replica(new InMemoryCalibrationStore(), meters);
        c.register(KEY);
        var gauge = meters.find(ProviderCalibration.GAUGE)
                .tag("provider", "default")
                .tag("model", "gpt-4o-mini")
                .gauge();
        assertThat(gauge).isNotNull();
        assertThat(gauge.value()).isEqualTo(1.0);
        c.observe(KEY, 1000, 1150);
        assertThat(gauge.value()).isCloseTo(1.15, within(1e-9));
        assertThat(c.ratio(KEY)).isCloseTo(1.15, within(1e-9));
    }

    @Test
    void aReplicaWithoutAnswersChargesWhatTheOthersLearnedOnceItSyncs() {
        InMemoryCalibrationStore store = new InMemoryCalibrationStore();
        ProviderCalibration a = replica(store, new SimpleMeterRegistry());
        ProviderCalibration b = replica(store, new SimpleMeterRegistry());
        assertThat(b.ratio(KEY)).isEqualTo(1.0); // b shares first, with nothing learned yet
        for (int i = 0; i < 3; i++) a.observe(KEY, 1000, 1200);
        assertThat(b.ratio(KEY)).as("not due yet: no store call").isEqualTo(1.0);
        clock.advance(5_000);
        a.ratio(KEY); // a shares what it learned
        assertThat(b.ratio(KEY)).isCloseTo(1.2, within(1e-9));
        // Combined by samples: b's own answers count as much as each of a's.
        b.observe(KEY, 1000, 1000);
        assertThat(b.current(KEY)).isCloseTo((1.2 * 3 + 1.0) / 4, within(1e-9));
    }

    @Test
    void storeCallsAreBoundedToOnePerBudgetPerInterval() {
        AtomicInteger calls = new AtomicInteger();
        InMemoryCalibrationStore memory = new InMemoryCalibrationStore();
        CalibrationStore counting = (key, replica, mine, maxAge) -> {
            calls.incrementAndGet();
            return memory.share(key, replica, mine, maxAge);
        };
        ProviderCalibration c = replica(counting, new SimpleMeterRegistry());
        for (int i = 0; i < 1_000; i++) {
            c.observe(KEY, 1000, 1100);
            c.ratio(KEY);
        }
        assertThat(calls).hasValue(1);
        clock.advance(5_000);
        c.ratio(KEY);
        assertThat(calls).hasValue(2);
    }

    @Test
    void whenTheStoreFailsEachReplicaGoesOnWithItsOwnRatio() {
        InMemoryCalibrationStore memory = new InMemoryCalibrationStore();
        AtomicBoolean down = new AtomicBoolean();
        CalibrationStore flaky = (key, replica, mine, maxAge) -> down.get()
                ? Mono.<Map<String, CalibrationStore.Entry>>error(new IllegalStateException("test: Redis down"))
                : memory.share(key, replica, mine, maxAge);
        ProviderCalibration a = replica(flaky, new SimpleMeterRegistry());
        ProviderCalibration b = replica(flaky, new SimpleMeterRegistry());
        for (int i = 0; i < 5; i++) a.observe(KEY, 1000, 1500);
        clock.advance(5_000);
        a.ratio(KEY);
        b.observe(KEY, 1000, 1000);
        assertThat(b.current(KEY)).isCloseTo((1.5 * 5 + 1.0) / 6, within(1e-9));
        down.set(true);
        clock.advance(5_000);
        b.observe(KEY, 1000, 1000);
        assertThat(b.current(KEY)).as("on its own: its two answers").isCloseTo(1.0, within(1e-9));
        assertThat(a.ratio(KEY)).isCloseTo(1.5, within(1e-9));
    }

    @Test
    void aStoreThatDoesNotAnswerIsNotWaitedFor() {
        ProviderCalibration c = replica((key, replica, mine, maxAge) -> Mono.never(), new SimpleMeterRegistry());
        c.observe(KEY, 1000, 1300);
        assertThat(c.ratio(KEY)).isCloseTo(1.3, within(1e-9)); // returns at once; the share times out in the background
    }
}
