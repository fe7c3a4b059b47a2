package dev.sluice.gateway.abuse;

import dev.sluice.gateway.api.Stage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The request path's side of activity recording, in this process: per minute, a map of
 * tenant → tier, per tenant an array of stage counters and the {@link Pressure} counters of
 * the quota's answers. Time is an argument. Writes are a
 * map lookup and an atomic add, safe from any thread.
 *
 * <p>{@link #drain} hands out what was recorded since the previous drain and zeroes it
 * (counters with {@code getAndSet} to their identity, so an update racing the drain lands in this drain or
 * the next, never lost); {@link #snapshot} reads without taking.
 */
public final class ActivityBuffer {
    private static final int STAGES = Stage.SERIES.size();

    private static final class Bucket {
        final ConcurrentHashMap<String, String> tiers = new ConcurrentHashMap<>();
        final ConcurrentHashMap<String, AtomicLongArray> stages = new ConcurrentHashMap<>();
        final ConcurrentHashMap<String, ConcurrentHashMap<String, AtomicLong>> pressure = new ConcurrentHashMap<>();
    }

    private final ConcurrentHashMap<Long, Bucket> buckets = new ConcurrentHashMap<>();

    public static long minuteOf(long ms) {
        return Math.floorDiv(ms, 60_000L) * 60_000L;
    }

    private Bucket bucket(long nowMs) {
        return buckets.computeIfAbsent(minuteOf(nowMs), m -> new Bucket());
    }

    public void seen(long nowMs, String tenantId, String tierName) {
        if (tenantId == null || tierName == null) return;
        Map<String, String> tiers = bucket(nowMs).tiers;
        if (!tierName.equals(tiers.get(tenantId))) tiers.put(tenantId, tierName);
    }

    public void stage(long nowMs, String tenantId, Stage stage) {
        int slot = stage == null ? -1 : Stage.SERIES.indexOf(stage);
        if (tenantId == null || slot < 0) return; // the series counts its stages only
        bucket(nowMs)
                .stages
                .computeIfAbsent(tenantId, t -> new AtomicLongArray(STAGES))
                .incrementAndGet(slot);
    }

    /** Merges one quota answer's {@link Pressure} counters into the tenant's minute. */
    public void pressure(long nowMs, String tenantId, Map<String, Long> counters) {
        if (tenantId == null || counters == null) return;
        ConcurrentHashMap<String, AtomicLong> mine =
                bucket(nowMs).pressure.computeIfAbsent(tenantId, t -> new ConcurrentHashMap<>());
        counters.forEach((k, v) -> mine.computeIfAbsent(k, x -> new AtomicLong(Pressure.identity(x)))
                .accumulateAndGet(v, (a, b) -> Pressure.merge(k, a, b)));
    }

    /** The minute's activity so far, without taking it. */
    public MinuteActivity snapshot(long minuteStartMs) {
        Bucket b = buckets.get(minuteStartMs);
        if (b == null) return new MinuteActivity(minuteStartMs, Map.of(), Map.of());
        Map<String, Map<String, Long>> stages = new HashMap<>();
        b.stages.forEach((tenant, counts) -> stages.put(tenant, toMap(counts, false)));
        Map<String, Map<String, Long>> pressure = new HashMap<>();
        b.pressure.forEach((tenant, counts) -> pressure.put(tenant, toMap(counts, false)));
        return new MinuteActivity(minuteStartMs, new HashMap<>(b.tiers), stages, pressure);
    }

    /**
     * Takes everything recorded since the last drain, one entry per minute with anything in
     * it, and forgets minutes before {@code nowMs}'s that are now empty.
     */
    public List<MinuteActivity> drain(long nowMs) {
        long current = minuteOf(nowMs);
        List<MinuteActivity> out = new ArrayList<>();
        buckets.forEach((minute, b) -> {
            Map<String, String> tiers = new HashMap<>();
            b.tiers.forEach((tenant, tier) -> {
                // remove(k, v): a concurrent put of another tier stays for the next drain
                if (b.tiers.remove(tenant, tier)) tiers.put(tenant, tier);
            });
            Map<String, Map<String, Long>> stages = new HashMap<>();
            b.stages.forEach((tenant, counts) -> {
                Map<String, Long> taken = toMap(counts, true);
                if (!taken.isEmpty()) stages.put(tenant, taken);
            });
            Map<String, Map<String, Long>> pressure = new HashMap<>();
            b.pressure.forEach((tenant, counts) -> {
                Map<String, Long> taken = toMap(counts, true);
                if (!taken.isEmpty()) pressure.put(tenant, taken);
            });
            if (!tiers.isEmpty() || !stages.isEmpty() || !pressure.isEmpty()) {
                out.add(new MinuteActivity(minute, tiers, stages, pressure));
            }
            if (minute < current) buckets.remove(minute);
        });
        return out;
    }

    /** Forgets minutes that started before {@code minuteStartMs}. */
    public void forgetBefore(long minuteStartMs) {
        buckets.keySet().removeIf(m -> m < minuteStartMs);
    }

    /** The counters that hold anything (not their identity); {@code take} resets them. */
    private static Map<String, Long> toMap(Map<String, AtomicLong> counts, boolean take) {
        Map<String, Long> out = new HashMap<>();
        counts.forEach((k, c) -> {
            long id = Pressure.identity(k);
            long n = take ? c.getAndSet(id) : c.get();
            if (n != id) out.put(k, n);
        });
        return out;
    }

    private static Map<String, Long> toMap(AtomicLongArray counts, boolean take) {
        Map<String, Long> out = new HashMap<>();
        for (int i = 0; i < STAGES; i++) {
            long n = take ? counts.getAndSet(i, 0) : counts.get(i);
            if (n > 0) out.put(Stage.SERIES.get(i).label(), n);
        }
        return out;
    }
}
