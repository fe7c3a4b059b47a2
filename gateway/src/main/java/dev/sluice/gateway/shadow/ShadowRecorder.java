package dev.sluice.gateway.shadow;

import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.support.Drainable;
import dev.sluice.gateway.support.Periodic;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Counts each request's live and draft outcome per tenant-minute on this replica and adds them to
 * the ledger every {@code every} (and at shutdown): one store call per flush, none on the request
 * path. A flush the store refuses is kept for the next. Also counted as {@link #DECISIONS}, by tier,
 * side and stage, for the dashboard: bounded labels.
 */
public final class ShadowRecorder implements Drainable {
    private static final Logger log = LoggerFactory.getLogger(ShadowRecorder.class);
    /** Tagged {@code tier}, {@code side} ({@code live}, {@code draft}) and {@code stage}. */
    public static final String DECISIONS = "sluice.shadow.decisions";

    /** The stages a what-if compares, in the ladder's order. */
    static final List<Stage> STAGES = List.of(Stage.PASSED, Stage.DOWNGRADED, Stage.DELAYED, Stage.REJECTED);

    private record Key(long minuteStartMs, String tenantId, String tier, long version) {}

    private final ShadowLedgerStore store;
    private final MeterRegistry meters;
    private final Clock clock;
    private final Periodic flusher;
    private Map<Key, long[]> buffer = new HashMap<>();
    private volatile boolean direct;

    public ShadowRecorder(ShadowLedgerStore store, MeterRegistry meters, Clock clock, Duration every) {
        this.store = store;
        this.meters = meters;
        this.clock = clock;
        this.flusher = new Periodic("shadow ledger flush", this::send);
        flusher.start(every, every);
    }

    /** One request: what the live path did and what the draft would have done. */
    public void record(String tenantId, String tier, long version, Stage live, Stage draft) {
        int l = STAGES.indexOf(live);
        int d = STAGES.indexOf(draft);
        if (l < 0 || d < 0) return;
        meters.counter(DECISIONS, "tier", tier, "side", "live", "stage", live.label())
                .increment();
        meters.counter(DECISIONS, "tier", tier, "side", "draft", "stage", draft.label())
                .increment();
        long minute = clock.millis() / 60_000 * 60_000;
        synchronized (this) {
            long[] counts =
                    buffer.computeIfAbsent(new Key(minute, tenantId, tier, version), k -> new long[2 * STAGES.size()]);
            counts[l]++;
            counts[STAGES.size() + d]++;
        }
        if (direct) send().subscribe();
    }

    /** Sends what is buffered; on failure it is merged back for the next flush. */
    public Mono<Void> send() {
        Map<Key, long[]> taken;
        synchronized (this) {
            if (buffer.isEmpty()) return Mono.empty();
            taken = buffer;
            buffer = new HashMap<>();
        }
        List<ShadowMinute> out = new ArrayList<>(taken.size());
        taken.forEach((k, c) -> out.add(new ShadowMinute(
                k.minuteStartMs(), k.tenantId(), k.tier(), k.version(), counts(c, 0), counts(c, STAGES.size()))));
        return store.add(out).onErrorResume(e -> {
            log.debug("Could not add {} shadow minutes to the ledger: {}", out.size(), e.toString());
            putBack(taken);
            return Mono.empty();
        });
    }

    private synchronized void putBack(Map<Key, long[]> taken) {
        taken.forEach((k, c) -> buffer.merge(k, c, (a, b) -> {
            for (int i = 0; i < a.length; i++) a[i] += b[i];
            return a;
        }));
    }

    private static Map<String, Long> counts(long[] c, int from) {
        Map<String, Long> m = new HashMap<>();
        for (int i = 0; i < STAGES.size(); i++)
            if (c[from + i] > 0) m.put(STAGES.get(i).label(), c[from + i]);
        return m;
    }

    @Override
    public void flush(Duration wait) {
        direct = true;
        send().block(wait);
    }

    @Override
    public void resume() {
        direct = false;
    }

    public void close() {
        flusher.stop();
    }
}
