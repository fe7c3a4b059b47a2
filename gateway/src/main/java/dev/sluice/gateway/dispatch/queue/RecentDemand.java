package dev.sluice.gateway.dispatch.queue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * What each tenant asked of one budget's door over the last {@link #SPAN_MS} and was refused:
 * the door's guess of what each will ask again soon (demand it met is not reserved again, or a
 * tenant that left would keep a share of the minute nobody uses). A crowd that uploads a book, waits for it
 * and uploads the next asks about once a minute; whoever comes back first must not take the
 * next minute from those still waiting for their answers, so the door keeps their share for
 * them ({@link Door}). Per-second buckets: memory is one small ring per tenant seen in the span.
 *
 * <p>Pure and single-threaded (the dispatcher's loop); time is an argument.
 */
final class RecentDemand {
    /** How long an ask is remembered: two of the provider's windows, as a book that waited a window for its turn comes back a little after one. */
    static final long SPAN_MS = 120_000;

    private static final int BUCKETS = (int) (SPAN_MS / 1_000);

    private static final class Ring {
        final long[] tokens = new long[BUCKETS];
        final int[] requests = new int[BUCKETS];
        long lastSecond = Long.MIN_VALUE;
        int priority = 1;

        void advanceTo(long second) {
            if (lastSecond == Long.MIN_VALUE || second - lastSecond >= BUCKETS) {
                Arrays.fill(tokens, 0);
                Arrays.fill(requests, 0);
            } else {
                for (long s = lastSecond + 1; s <= second; s++) {
                    int i = (int) Math.floorMod(s, BUCKETS);
                    tokens[i] = 0;
                    requests[i] = 0;
                }
            }
            if (second > lastSecond) lastSecond = second;
        }

        long tokens() {
            long sum = 0;
            for (long t : tokens) sum = LaneShare.clamp(sum + t); // each bucket is clamped: no overflow
            return sum;
        }

        int requests() {
            int sum = 0;
            for (int r : requests) sum += r;
            return sum;
        }
    }

    private final Map<String, Ring> rings = new HashMap<>();

    /** {@code tenant} asked for a call of {@code tokens} at {@code nowMs}. */
    void asked(String tenant, int priority, long tokens, long nowMs) {
        long second = Math.floorDiv(nowMs, 1_000);
        Ring r = rings.computeIfAbsent(tenant, t -> new Ring());
        r.advanceTo(second);
        int i = (int) Math.floorMod(r.lastSecond, BUCKETS);
        r.tokens[i] = LaneShare.clamp(r.tokens[i] + Math.max(0, tokens));
        r.requests[i]++;
        r.priority = priority;
    }

    /** Calls {@code each} with every tenant's (tokens, requests) asked in the span ending at {@code nowMs}; forgets the rest. */
    void forEach(long nowMs, Each each) {
        long second = Math.floorDiv(nowMs, 1_000);
        for (Iterator<Map.Entry<String, Ring>> it = rings.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Ring> e = it.next();
            Ring r = e.getValue();
            r.advanceTo(second);
            int requests = r.requests();
            if (requests == 0) {
                it.remove();
                continue;
            }
            each.accept(e.getKey(), r.priority, r.tokens(), requests);
        }
    }

    @FunctionalInterface
    interface Each {
        void accept(String tenant, int priority, long tokens, int requests);
    }
}
