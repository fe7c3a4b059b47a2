package dev.sluice.gateway.dispatch.calibration;

import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * Where replicas share what they learned of a provider's token count ({@link TokenCalibration}):
 * Redis (a hash per provider budget, a field per replica) or this process's memory. One contract
 * suite tests both.
 */
public interface CalibrationStore {

    /** One replica's entry: its state and when it wrote it (its own clock). */
    record Entry(TokenCalibration.State state, long atMs) {
        public String encode() {
            return atMs + " " + state.ratio() + " " + state.samples();
        }

        /** Empty for a value that is not an entry (written by something else): it is skipped, not fatal. */
        public static Optional<Entry> decode(String value) {
            String[] parts = value == null ? new String[0] : value.trim().split(" ");
            if (parts.length != 3) return Optional.empty();
            try {
                return Optional.of(new Entry(
                        new TokenCalibration.State(Double.parseDouble(parts[1]), Long.parseLong(parts[2])),
                        Long.parseLong(parts[0])));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
    }

    /**
     * In one call: stores {@code replica}'s entry for budget {@code key}, forgets the replicas
     * whose entry is older than {@code maxAgeMs} at {@code mine.atMs()}, and returns every
     * replica's entry left (this one's included), by replica.
     */
    Mono<Map<String, Entry>> share(String key, String replica, Entry mine, long maxAgeMs);
}
