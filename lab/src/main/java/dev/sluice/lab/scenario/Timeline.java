package dev.sluice.lab.scenario;

import dev.sluice.lab.scenario.LabReport.TimelinePoint;
import java.util.ArrayList;
import java.util.List;

/**
 * Per-second counts of a run, from its start: tokens the provider admitted, its refusals, and
 * refusals on our side. Times are milliseconds on the run's clock (seed units); events before
 * the start count in second 0. Thread-safe: events come from the provider and the clients at once.
 */
public final class Timeline {
    private final long startMs;
    private final List<long[]> seconds = new ArrayList<>(); // [admittedTokens, providerErrors, refusals]

    public Timeline(long startMs) {
        this.startMs = startMs;
    }

    public synchronized void admitted(long atMs, long tokens) {
        at(atMs)[0] += tokens;
    }

    public synchronized void providerError(long atMs) {
        at(atMs)[1]++;
    }

    public synchronized void refusal(long atMs) {
        at(atMs)[2]++;
    }

    /** Every second from 0 to the last with an event (empty seconds included, so a chart's x axis is time). */
    public synchronized List<TimelinePoint> points() {
        List<TimelinePoint> out = new ArrayList<>(seconds.size());
        for (int i = 0; i < seconds.size(); i++) {
            long[] s = seconds.get(i);
            out.add(new TimelinePoint(i, s[0], s[1], s[2]));
        }
        return out;
    }

    /**
     * The most tokens admitted in any {@code windowSeconds} consecutive seconds: what the provider's
     * rolling window saw at its fullest, to the second's resolution.
     */
    public static long maxWindowSum(List<TimelinePoint> points, int windowSeconds) {
        if (windowSeconds < 1) throw new IllegalArgumentException("windowSeconds must be at least 1, was " + windowSeconds);
        long best = 0;
        long sum = 0;
        for (int i = 0; i < points.size(); i++) {
            sum += points.get(i).admittedTokens();
            if (i >= windowSeconds) sum -= points.get(i - windowSeconds).admittedTokens();
            best = Math.max(best, sum);
        }
        return best;
    }

    /** A run is minutes long; a day means a clock went wrong, and memory must not follow it. */
    static final int MAX_SECONDS = 86_400;

    private long[] at(long atMs) {
        int second = (int) Math.min(MAX_SECONDS, Math.max(0, Math.floorDiv(atMs - startMs, 1000L)));
        while (seconds.size() <= second) seconds.add(new long[3]);
        return seconds.get(second);
    }
}
