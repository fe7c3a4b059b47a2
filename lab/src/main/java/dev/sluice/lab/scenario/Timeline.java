package dev.sluice.lab.scenario;

import dev.sluice.lab.scenario.LabReport.TimelinePoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Per-second counts of a run, from its start, in the provider's own measure: the tokens its rolling
 * window held and the calls it had in flight (each second's fullest instant, so a crossing inside a
 * second is never averaged away), the tokens it admitted, its refusals and ours. Times are
 * milliseconds on the run's clock (seed units); events before the start count in second 0.
 * Thread-safe: events come from the provider and the clients at once.
 */
public final class Timeline {
    /** The provider's "minute" unless told otherwise. */
    public static final long MINUTE_MS = 60_000;
    /** An admitted call counts in the window and is in flight from the same instant: one event. */
    private static final int ADMIT = 0;

    private static final int FINISH = 1;

    private final long startMs;
    private final long windowMs;
    private final List<long[]> seconds = new ArrayList<>(); // [admittedTokens, providerErrors, refusals]
    /** What the provider counted, in arrival order: [atMs, kind, tokens]. Replayed by {@link #points()}. */
    private long[] events = new long[3 * 256];

    private int eventCount;

    public Timeline(long startMs) {
        this(startMs, MINUTE_MS);
    }

    /** @param windowMs the provider's rolling window (its "minute") */
    public Timeline(long startMs, long windowMs) {
        if (windowMs < 1) throw new IllegalArgumentException("windowMs must be at least 1, was " + windowMs);
        this.startMs = startMs;
        this.windowMs = windowMs;
    }

    /** The provider admitted a call counting {@code tokens} against its window; it is in flight from now. */
    public synchronized void admitted(long atMs, long tokens) {
        at(atMs)[0] += tokens;
        event(atMs, ADMIT, tokens);
    }

    /** The provider released a call this timeline saw {@link #admitted}: one fewer in flight. */
    public synchronized void released(long atMs) {
        at(atMs);
        event(atMs, FINISH, 0);
    }

    public synchronized void providerError(long atMs) {
        at(atMs)[1]++;
    }

    public synchronized void refusal(long atMs) {
        at(atMs)[2]++;
    }

    /**
     * Every second from 0 to the last with an event (empty seconds included, so a chart's x axis is
     * time). A second's window and in-flight figures are their highest at any instant within it: the
     * window counts an admission at t while now &lt; t + window, as the provider does.
     */
    public synchronized List<TimelinePoint> points() {
        int n = seconds.size();
        long[] window = new long[n];
        long[] inFlight = new long[n];
        replay(window, inFlight);
        List<TimelinePoint> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long[] s = seconds.get(i);
            out.add(new TimelinePoint(i, s[0], window[i], (int) Math.min(Integer.MAX_VALUE, inFlight[i]), s[1], s[2]));
        }
        return out;
    }

    /**
     * Sweeps the events in time order (ties keep their arrival order, which is the provider's own,
     * since it reports under its lock) together with every second's start, where a quiet second
     * takes what the window and the calls still running hold as it begins.
     */
    private void replay(long[] window, long[] inFlight) {
        Integer[] order = new Integer[eventCount];
        for (int i = 0; i < eventCount; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> Long.compare(events[3 * a], events[3 * b])); // stable
        Sweep sweep = new Sweep(eventCount);
        int next = 0;
        for (int second = 0; second < window.length; second++) {
            long secondStart = startMs + second * 1000L;
            long secondEnd = second == window.length - 1 ? Long.MAX_VALUE : secondStart + 1000L;
            if (second > 0) sweep.expire(secondStart); // second 0 also takes the events before the start
            window[second] = sweep.sum;
            inFlight[second] = sweep.running;
            for (; next < eventCount && events[3 * order[next]] < secondEnd; next++) {
                int e = order[next];
                long at = events[3 * e];
                if (events[3 * e + 1] == ADMIT) {
                    sweep.admit(at, events[3 * e + 2]);
                    sweep.running++;
                } else {
                    sweep.running = Math.max(0, sweep.running - 1);
                }
                window[second] = Math.max(window[second], sweep.sum);
                inFlight[second] = Math.max(inFlight[second], sweep.running);
            }
        }
    }

    /** The provider's window and in-flight count, replayed forward in time. */
    private final class Sweep {
        final long[] at;
        final long[] tokens;
        int added;
        int expired;
        long sum;
        long running;

        Sweep(int capacity) {
            at = new long[capacity];
            tokens = new long[capacity];
        }

        /** As the provider admits: what left the window by now goes first, then the call counts. */
        void admit(long atMs, long t) {
            expire(atMs);
            at[added] = atMs;
            tokens[added++] = Math.max(0, t);
            sum = Math.addExact(sum, Math.max(0, t)); // bounded by what one minute admitted; overflow is a bug
        }

        void expire(long now) {
            while (expired < added && at[expired] <= now - windowMs) sum -= tokens[expired++];
        }
    }

    /**
     * The most tokens admitted in any {@code windowSeconds} consecutive seconds: what the provider's
     * rolling window saw at its fullest, to the second's resolution.
     */
    public static long maxWindowSum(List<TimelinePoint> points, int windowSeconds) {
        if (windowSeconds < 1)
            throw new IllegalArgumentException("windowSeconds must be at least 1, was " + windowSeconds);
        long best = 0;
        long sum = 0;
        for (int i = 0; i < points.size(); i++) {
            sum += points.get(i).admittedTokens();
            if (i >= windowSeconds) sum -= points.get(i - windowSeconds).admittedTokens();
            best = Math.max(best, sum);
        }
        return best;
    }

    /** The most tokens the provider's window held at any instant of the run. */
    public static long peakWindow(List<TimelinePoint> points) {
        long best = 0;
        for (TimelinePoint p : points) best = Math.max(best, p.tokensInWindow());
        return best;
    }

    /** The first second in which the provider's window held more than {@code limit} tokens; -1 if none did. */
    public static int firstSecondOver(List<TimelinePoint> points, long limit) {
        for (TimelinePoint p : points) if (p.tokensInWindow() > limit) return p.second();
        return -1;
    }

    /** A run is minutes long; a day means a clock went wrong, and memory must not follow it. */
    static final int MAX_SECONDS = 86_400;

    private long[] at(long atMs) {
        int second = (int) Math.min(MAX_SECONDS, Math.max(0, Math.floorDiv(atMs - startMs, 1000L)));
        while (seconds.size() <= second) seconds.add(new long[3]);
        return seconds.get(second);
    }

    private void event(long atMs, int kind, long tokens) {
        if (3 * eventCount == events.length) events = Arrays.copyOf(events, events.length * 2);
        events[3 * eventCount] = atMs;
        events[3 * eventCount + 1] = kind;
        events[3 * eventCount + 2] = tokens;
        eventCount++;
    }
}
