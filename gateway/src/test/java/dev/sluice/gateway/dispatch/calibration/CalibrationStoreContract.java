package dev.sluice.gateway.dispatch.calibration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.calibration.CalibrationStore.Entry;
import dev.sluice.gateway.dispatch.calibration.TokenCalibration.State;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link CalibrationStore} does, memory and Redis alike. */
abstract class CalibrationStoreContract {
    static final long MAX_AGE = 60_000;
    CalibrationStore store;
    String key;

    abstract CalibrationStore newStore();

    @BeforeEach
    void setUp() {
        store = newStore();
        key = "test-" + UUID.randomUUID() + ":gpt-4o-mini"; // a budget of its own: tests never see each other's
    }

    Map<String, Entry> share(String replica, double ratio, long samples, long atMs) {
        return store.share(key, replica, new Entry(new State(ratio, samples), atMs), MAX_AGE)
                .block(Duration.ofSeconds(5));
    }

    @Test
    void eachReplicaSeesEveryReplicasEntryItsOwnIncluded() {
        assertThat(share("a", 1.15, 3, 1_000)).containsOnlyKeys("a");
        Map<String, Entry> seen = share("b", 1.05, 7, 1_500);
        assertThat(seen).containsOnlyKeys("a", "b");
        assertThat(seen.get("a")).isEqualTo(new Entry(new State(1.15, 3), 1_000));
        assertThat(seen.get("b")).isEqualTo(new Entry(new State(1.05, 7), 1_500));
    }

    @Test
    void aReplicasNewEntryReplacesItsOld() {
        share("a", 1.0, 1, 1_000);
        assertThat(share("a", 1.2, 9, 2_000)).containsExactly(Map.entry("a", new Entry(new State(1.2, 9), 2_000)));
    }

    @Test
    void aReplicaSilentPastTheMaxAgeNoLongerCounts() {
        share("gone", 1.9, 100, 1_000);
        assertThat(share("here", 1.1, 5, 1_000 + MAX_AGE)).containsOnlyKeys("gone", "here");
        assertThat(share("here", 1.1, 6, 1_001 + MAX_AGE)).containsOnlyKeys("here");
    }

    @Test
    void budgetsAreApart() {
        share("a", 1.3, 2, 1_000);
        Map<String, Entry> other = store.share(key + "-other", "b", new Entry(new State(0.9, 1), 1_000), MAX_AGE)
                .block(Duration.ofSeconds(5));
        assertThat(other).containsOnlyKeys("b");
    }
}
