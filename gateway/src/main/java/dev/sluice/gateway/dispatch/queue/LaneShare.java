package dev.sluice.gateway.dispatch.queue;

import dev.sluice.gateway.dispatch.budget.Amounts;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import reactor.core.publisher.Mono;

/**
 * Where replicas share their fair queues' counters for one provider budget, so fairness holds
 * across replicas and not only within each:
 * Redis (one hash per budget) or this process's memory. Each replica, at each tick, adds what
 * its lanes were served since its last tick to each tenant's shared counter (tokens × priority,
 * the {@link FairQueue}'s unit), says which tenants wait on it, and reads back the tenants'
 * counters and the lowest counter waiting on any other replica. A tenant that starts waiting
 * again (nobody reported it waiting within the TTL) is lifted to the shared floor less the
 * credit, as {@link FairQueue} lifts a lane locally; a replica that stops publishing drops out
 * after the TTL. One contract suite tests both adapters.
 */
public interface LaneShare {

    /**
     * One lane of this replica at a tick.
     *
     * @param served  tokens × priority served since this replica's last report (negative after a correction)
     * @param waiting whether the lane has work waiting here now
     */
    record Report(String tenant, long served, boolean waiting) {}

    /**
     * What the fleet says back.
     *
     * @param othersLowest the lowest counter among tenants waiting on another replica (fresh within
     *                     the TTL); empty when no other replica has anyone waiting
     * @param counters     the shared counter of every tenant reported, after this report
     */
    record View(OptionalLong othersLowest, Map<String, Long> counters, Map<String, Demand> elsewhere) {
        public static final View ALONE = new View(OptionalLong.empty(), Map.of(), Map.of());

        public View {
            counters = Map.copyOf(counters);
            elsewhere = Map.copyOf(elsewhere);
        }

        /** A view with no other replica's demand. */
        public View(OptionalLong othersLowest, Map<String, Long> counters) {
            this(othersLowest, counters, Map.of());
        }
    }

    /**
     * One tenant's demand at one replica's door for the budget: what it has queued there and
     * what the door refused it there in its span ({@link RecentDemand}; {@code askedTokens}). Each door counts the others'
     * ahead of whoever it admits, so a crowd split between replicas is promised one horizon,
     * not one per replica.
     *
     * @param head the counter at which the tenant's demand there starts: its lane's counter before
     *             what it has queued there ({@link FairQueue#headTagOf}). A door where the tenant has
     *             no lane places its demand from there in counter order; its own guess (its floor less
     *             the credit) would put every other replica's tenants ahead of its own.
     *             {@link #UNKNOWN_HEAD} from a replica that does not say it.
     * @param dueInMs how long after the report the start the door there promised the tenant's next job
     *             of the class served there comes (negative: it has come); {@link #NOT_DUE} when it has
     *             none, or from a replica that does not say it. Relative, so that replicas' clocks need
     *             not agree.
     */
    record Demand(
            String tenant,
            int priority,
            long queuedTokens,
            long askedTokens,
            int askedRequests,
            long head,
            int queuedRequests,
            long dueInMs) {
        public static final long UNKNOWN_HEAD = Long.MIN_VALUE;
        public static final long NOT_DUE = Long.MAX_VALUE;

        public Demand {
            if (tenant == null || tenant.isEmpty()) throw new IllegalArgumentException("tenant must not be empty");
            if (priority < 1) throw new IllegalArgumentException("priority must be at least 1, was " + priority);
            if (queuedTokens < 0 || askedTokens < 0 || askedRequests < 0 || queuedRequests < 0) {
                throw new IllegalArgumentException("demand must not be negative: " + queuedTokens + ", " + askedTokens
                        + ", " + askedRequests + ", " + queuedRequests);
            }
        }

        /** Demand whose promised starts are not said. */
        public Demand(
                String tenant,
                int priority,
                long queuedTokens,
                long askedTokens,
                int askedRequests,
                long head,
                int queuedRequests) {
            this(tenant, priority, queuedTokens, askedTokens, askedRequests, head, queuedRequests, NOT_DUE);
        }

        /** Demand whose queued calls are not said (a replica of an earlier version): only its tokens. */
        public Demand(String tenant, int priority, long queuedTokens, long askedTokens, int askedRequests, long head) {
            this(tenant, priority, queuedTokens, askedTokens, askedRequests, head, 0);
        }

        /** Demand whose place in counter order is not said. */
        public Demand(String tenant, int priority, long queuedTokens, long askedTokens, int askedRequests) {
            this(tenant, priority, queuedTokens, askedTokens, askedRequests, UNKNOWN_HEAD);
        }

        /** Summed; it starts at the lowest head said, and is due when its earliest part is. */
        Demand plus(Demand other) {
            long lowest =
                    head == UNKNOWN_HEAD ? other.head : other.head == UNKNOWN_HEAD ? head : Math.min(head, other.head);
            return new Demand(
                    tenant,
                    Math.max(priority, other.priority),
                    clamp(queuedTokens + other.queuedTokens),
                    clamp(askedTokens + other.askedTokens),
                    (int) Math.min(Integer.MAX_VALUE, (long) askedRequests + other.askedRequests),
                    lowest,
                    (int) Math.min(Integer.MAX_VALUE, (long) queuedRequests + other.queuedRequests),
                    Math.min(dueInMs, other.dueInMs));
        }
    }

    /**
     * When the earliest promised start in {@code demand} comes, on a clock that read it at {@code readAtMs}
     * ({@link Demand#dueInMs}, saturating); {@link Long#MAX_VALUE} when none is said. Only demand that starts
     * at or below counter {@code reach} counts: a tenant further on is held back by counter where it waits
     * ({@link HoldBack#aboveAt}), and lanes that waited for it here would wait on each other.
     */
    public static long dueAt(Collection<Demand> demand, long reach, long readAtMs) {
        long soonest = Demand.NOT_DUE;
        for (Demand d : demand) if (d.head() <= reach) soonest = Math.min(soonest, d.dueInMs());
        if (soonest == Demand.NOT_DUE) return Long.MAX_VALUE;
        if (soonest > 0 && readAtMs > Long.MAX_VALUE - soonest) return Long.MAX_VALUE - 1;
        if (soonest < 0 && readAtMs < Long.MIN_VALUE - soonest) return Long.MIN_VALUE;
        return readAtMs + soonest;
    }

    /** The calls and tokens queued in {@code demand}, summed: what those lines hold for the budget. */
    static Amounts queued(Collection<Demand> demand) {
        long requests = 0;
        long tokens = 0;
        for (Demand d : demand) {
            requests = clamp(requests + d.queuedRequests());
            tokens = clamp(tokens + d.queuedTokens());
        }
        return new Amounts(requests, tokens, 0, 0);
    }

    /** Several replicas' demand, summed per tenant. */
    static Map<String, Demand> sum(Iterable<List<Demand>> replicas) {
        Map<String, Demand> out = new HashMap<>();
        for (List<Demand> one : replicas) for (Demand d : one) out.merge(d.tenant(), d, Demand::plus);
        return out;
    }

    /**
     * One replica's demand as one string (a Redis hash field's value): a line per tenant,
     * {@code tenant priority queued asked requests head queuedRequests dueInMs}, the tenant URL-encoded so that
     * it holds no space or line break. A line of five fields (a replica that does not say the head) is read with
     * the head unknown, one of six with the queued calls unknown (0), one of seven with nothing due.
     */
    static String encode(List<Demand> demand) {
        StringBuilder b = new StringBuilder();
        for (Demand d : demand) {
            if (!b.isEmpty()) b.append('\n');
            b.append(URLEncoder.encode(d.tenant(), StandardCharsets.UTF_8))
                    .append(' ')
                    .append(d.priority())
                    .append(' ')
                    .append(d.queuedTokens())
                    .append(' ')
                    .append(d.askedTokens())
                    .append(' ')
                    .append(d.askedRequests());
            boolean due = d.dueInMs() != Demand.NOT_DUE;
            if (d.head() != Demand.UNKNOWN_HEAD || d.queuedRequests() > 0 || due)
                b.append(' ').append(d.head());
            if (d.queuedRequests() > 0 || due) b.append(' ').append(d.queuedRequests());
            if (due) b.append(' ').append(d.dueInMs());
        }
        return b.toString();
    }

    /** {@link #encode}'s inverse; a line that does not parse is skipped (a replica of another version). */
    static List<Demand> decode(String blob) {
        List<Demand> out = new ArrayList<>();
        if (blob == null || blob.isEmpty()) return out;
        for (String line : blob.split("\n")) {
            String[] f = line.split(" ");
            if (f.length < 5 || f.length > 8) continue;
            try {
                out.add(new Demand(
                        URLDecoder.decode(f[0], StandardCharsets.UTF_8),
                        Integer.parseInt(f[1]),
                        Long.parseLong(f[2]),
                        Long.parseLong(f[3]),
                        Integer.parseInt(f[4]),
                        f.length >= 6 ? Long.parseLong(f[5]) : Demand.UNKNOWN_HEAD,
                        f.length >= 7 ? Integer.parseInt(f[6]) : 0,
                        f.length == 8 ? Long.parseLong(f[7]) : Demand.NOT_DUE));
            } catch (IllegalArgumentException e) {
                // skipped, as said
            }
        }
        return out;
    }

    /**
     * @param ttlMs  a replica (and a tenant's waiting mark) silent this long no longer counts
     * @param credit how far below the shared floor a tenant that starts waiting again is placed
     */
    record Terms(long ttlMs, long credit) {
        public Terms {
            if (ttlMs < 1) throw new IllegalArgumentException("ttl must be positive, was " + ttlMs);
            if (credit < 0 || credit > MAX_COUNTER)
                throw new IllegalArgumentException("credit out of range: " + credit);
        }
    }

    /**
     * Counters saturate here, in Java and in Lua alike: 2^53, the largest integer a Lua number
     * (a double) holds exactly. Years of a provider's whole minute at priority 3 stay far below.
     */
    long MAX_COUNTER = 1L << 53;

    /** Clamps {@code v} into [-MAX_COUNTER, MAX_COUNTER]. */
    static long clamp(long v) {
        return Math.max(-MAX_COUNTER, Math.min(MAX_COUNTER, v));
    }

    /**
     * In one call: reports {@code replica}'s lanes of budget {@code key} at {@code nowMs} and its
     * door's {@code demand} (kept for the TTL), and returns the fleet's view, the other fresh
     * replicas' demand summed.
     */
    Mono<View> publish(String key, String replica, long nowMs, List<Report> lanes, List<Demand> demand, Terms terms);
}
