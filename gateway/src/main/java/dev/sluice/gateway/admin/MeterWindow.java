package dev.sluice.gateway.admin;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What counters did over the last window. Counters only ever grow from the process start, so
 * "the last minute" is the current totals minus the totals of a minute ago: this keeps
 * snapshots of the totals, a few seconds apart, for a little over one window. Time is an
 * argument, so the arithmetic is tested without waiting.
 */
final class MeterWindow {
    /** The change of every total over {@code coveredMs} (less than the window until enough history exists). */
    record Delta(long coveredMs, Map<String, Double> change) {
        double get(String key) {
            return change.getOrDefault(key, 0.0);
        }
    }

    private record Snapshot(long atMs, Map<String, Double> totals) {}

    private final long windowMs;
    private final ArrayDeque<Snapshot> snapshots = new ArrayDeque<>();

    MeterWindow(long windowMs) {
        if (windowMs <= 0) throw new IllegalArgumentException("window must be positive");
        this.windowMs = windowMs;
    }

    long windowMs() {
        return windowMs;
    }

    /** Keeps {@code totals} as of {@code atMs}; drops what no window ending now or later can need. */
    synchronized void record(long atMs, Map<String, Double> totals) {
        Snapshot last = snapshots.peekLast();
        if (last != null && atMs < last.atMs()) return; // a late tick: time only moves forward here
        snapshots.addLast(new Snapshot(atMs, Map.copyOf(totals)));
        // Keep the newest snapshot that is at least a window old, and everything after it.
        while (snapshots.size() > 1) {
            Iterator<Snapshot> it = snapshots.iterator();
            it.next();
            if (it.next().atMs() <= atMs - windowMs) snapshots.removeFirst();
            else break;
        }
    }

    /**
     * The change from the newest snapshot at least a window before {@code nowMs} (or, while the
     * history is shorter, the oldest one) to {@code current}. Without any snapshot, nothing is
     * known about the window: covered 0, no change.
     */
    synchronized Delta since(long nowMs, Map<String, Double> current) {
        Snapshot from = null;
        for (Snapshot s : snapshots) {
            if (s.atMs() > nowMs) break;
            if (from == null || s.atMs() <= nowMs - windowMs) from = s;
        }
        if (from == null) return new Delta(0, Map.of());
        Map<String, Double> change = new LinkedHashMap<>();
        for (Map.Entry<String, Double> e : current.entrySet()) {
            // A meter first seen after the snapshot started from zero; a reset (never, for counters) reads as 0.
            change.put(e.getKey(), Math.max(0, e.getValue() - from.totals().getOrDefault(e.getKey(), 0.0)));
        }
        return new Delta(nowMs - from.atMs(), change);
    }
}
