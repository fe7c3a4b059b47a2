package dev.sluice.gateway.dispatch.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Tenants refused at a budget's door that are expected back, and the room kept for them when it
 * frees early. A closed-loop crowd asks once per book: a tenant whose book was partly refused
 * asks again when the rest of it is answered, and the door counted that ask ahead of every job
 * of a tenant further along in counter order ({@link ExpectedDemand}). When room frees sooner
 * than the door foresaw (answers shorter than their reservation, settled a few seconds in), the
 * first tenant back would take it all, ahead of those the door counted first: on the judged
 * two-provider crowd, the tenant whose book came back 300 ms before the others' took 37 pages of
 * room freed at 5 s, and ended the minute with 136 pages against 86 (Jain 0.965).
 *
 * <p>So a lane ahead of such a tenant's start by more than {@code slack} waits for it, but only
 * with a job admitted after that tenant's refusal (its promise counted the tenant back first;
 * an earlier one's did not), and for at most {@code patienceMs} once the hold keeps a job the
 * budget has room for ({@link #holding}): a tenant that does not come back leaves the room
 * idle once, not for good; once it joins the queue again, its next refusal has the patience whole.
 * A tenant with work waiting is in line and needs no hold.
 *
 * <p>Pure and single-threaded (the queue's); time is an argument.
 */
final class Awaited {
    /** How long a refused tenant is expected back: the door's span for refused demand. */
    static final long SPAN_MS = RecentDemand.SPAN_MS;

    /**
     * How long room that fits a held job is kept for a tenant that does not come back: a book's
     * last answers and the client's pause before the next (the judged crowd: 1 s after the last
     * page) come back within it.
     */
    static final long PATIENCE_MS = 1_000;

    /** One tenant refused here, as the hold reads it: where it would start in counter order, when it was refused. */
    record Tenant(String tenant, long startsAt, long refusedAtMs) {}

    private static final long NOT_HOLDING = Long.MIN_VALUE;

    private final long slack;
    private final long patienceMs;
    /** Per tenant: {refused at, holding with room since (or NOT_HOLDING)}. */
    private final Map<String, long[]> refused = new HashMap<>();

    /**
     * @param slack      how far ahead of an awaited tenant's start a lane may still go, in counter units
     * @param patienceMs how long room that fits is kept for a tenant that does not come back
     */
    Awaited(long slack, long patienceMs) {
        if (slack < 0 || patienceMs < 0) throw new IllegalArgumentException("slack and patience must not be negative");
        this.slack = slack;
        this.patienceMs = patienceMs;
    }

    /**
     * {@code tenant} asked at {@code nowMs} and was refused: it is awaited. Its patience runs on: a
     * tenant refused while room was kept for it does not take that room, and keeping it longer
     * would idle the provider for a tenant the door keeps refusing.
     */
    void refused(String tenant, long nowMs) {
        long[] r = refused.computeIfAbsent(tenant, t -> new long[] {nowMs, NOT_HOLDING});
        r[0] = Math.max(r[0], nowMs);
    }

    /** {@code tenant} joined the queue: it came back, and its patience is whole again for its next refusal. */
    void joined(String tenant) {
        long[] r = refused.get(tenant);
        if (r != null) r[1] = NOT_HOLDING;
    }

    /**
     * The tenants awaited at {@code nowMs}, lowest start first: refused within {@link #SPAN_MS},
     * with nothing waiting here ({@code waiting}), their patience not spent; {@code startsAt}
     * gives where each would start in counter order were it to join now. Forgets the rest.
     */
    List<Tenant> at(long nowMs, Predicate<String> waiting, ToLongFunction<String> startsAt) {
        if (refused.isEmpty()) return List.of();
        List<Tenant> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, long[]>> it = refused.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, long[]> e = it.next();
            long[] r = e.getValue();
            if (nowMs - r[0] >= SPAN_MS) {
                it.remove();
                continue;
            }
            boolean spent = r[1] != NOT_HOLDING && nowMs - r[1] >= patienceMs;
            if (spent || waiting.test(e.getKey())) continue;
            out.add(new Tenant(e.getKey(), startsAt.applyAsLong(e.getKey()), r[0]));
        }
        out.sort((a, b) -> Long.compare(a.startsAt(), b.startsAt()));
        return out;
    }

    /**
     * Whether a lane at counter {@code laneCounter} whose next job was admitted at {@code admittedAtMs}
     * waits for one of {@code awaited} (lowest start first): one whose start it is past by more than
     * the slack, refused before that job was admitted.
     */
    boolean holds(List<Tenant> awaited, long laneCounter, long admittedAtMs) {
        for (Tenant t : awaited) {
            if (laneCounter <= reach(t)) return false; // sorted: the rest start later still
            if (t.refusedAtMs() <= admittedAtMs) return true;
        }
        return false;
    }

    /**
     * The hold keeps a job of a lane at {@code laneCounter}, admitted at {@code admittedAtMs}, that the
     * budget has room for: the patience of each tenant it waits for runs from now (if not already).
     */
    void holding(List<Tenant> awaited, long laneCounter, long admittedAtMs, long nowMs) {
        for (Tenant t : awaited) {
            if (laneCounter <= reach(t)) return;
            if (t.refusedAtMs() > admittedAtMs) continue;
            long[] r = refused.get(t.tenant());
            if (r != null && r[1] == NOT_HOLDING) r[1] = nowMs;
        }
    }

    /** The highest counter a lane may have and still go ahead of {@code t}: its start and the slack (saturating). */
    private long reach(Tenant t) {
        return t.startsAt() > Long.MAX_VALUE - slack ? Long.MAX_VALUE : t.startsAt() + slack;
    }

    boolean isEmpty() {
        return refused.isEmpty();
    }
}
