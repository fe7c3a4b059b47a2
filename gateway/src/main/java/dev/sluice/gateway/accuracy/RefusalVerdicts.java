package dev.sluice.gateway.accuracy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Whether a 429 was necessary, judged once the calls that filled the window have settled: a
 * refusal short of {@code shortfall} tokens was unnecessary when the reservations open in its
 * window at that moment gave back at least that much at settlement (reserved minus used), so
 * the window, charged what was really used, would have had room.
 *
 * <p>The pure core: time is an argument, nothing is shared. It sees one replica's reservations:
 * another replica's over-reservations are not counted, so "unnecessary" is a lower bound on a fleet.
 * Memory is bounded: the open reservations are the requests in flight, and at most
 * {@link #MAX_PENDING} refusals per tenant wait for their verdict (older ones are given up, as is
 * one still waiting after {@link #GIVE_UP_MS}: a verdict never comes for it).
 */
public final class RefusalVerdicts {
    public enum Verdict {
        NECESSARY,
        UNNECESSARY,
        /** Dropped before every reservation it waited on settled. */
        UNDECIDED;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A verdict reached, for the tier the refusal was made under. */
    public record Decided(String tier, Verdict verdict) {}

    static final int MAX_PENDING = 64;
    static final long GIVE_UP_MS = 15 * 60_000L;

    private static final class Open {
        final long reserved;
        final long chargedAtMs;
        /** The refusals waiting on this reservation. */
        final List<Pending> waiting = new ArrayList<>(1);

        Open(long reserved, long chargedAtMs) {
            this.reserved = reserved;
            this.chargedAtMs = chargedAtMs;
        }
    }

    private static final class Pending {
        final String tier;
        final long shortfall;
        final long atMs;
        int outstanding;
        long givenBack;
        boolean done;

        Pending(String tier, long shortfall, long atMs) {
            this.tier = tier;
            this.shortfall = shortfall;
            this.atMs = atMs;
        }
    }

    private static final class TenantState {
        final Map<Object, Open> open = new IdentityHashMap<>();
        final Deque<Pending> pending = new ArrayDeque<>();

        boolean idle() {
            return open.isEmpty() && pending.isEmpty();
        }
    }

    private final Map<String, TenantState> tenants = new HashMap<>();

    /** A reservation of {@code reservedTokens} charged at {@code chargedAtMs}, identified by {@code handle}. */
    public void opened(String tenant, Object handle, long reservedTokens, long chargedAtMs) {
        tenants.computeIfAbsent(tenant, t -> new TenantState())
                .open
                .put(handle, new Open(Math.max(0, reservedTokens), chargedAtMs));
    }

    /**
     * The reservation settled at {@code usedTokens} (0 for a refund): the verdicts it completes.
     * An unknown handle (settled twice, or opened before this audit existed) is ignored.
     */
    public List<Decided> settled(String tenant, Object handle, long usedTokens) {
        TenantState s = tenants.get(tenant);
        if (s == null) return List.of();
        Open o = s.open.remove(handle);
        if (o == null) return List.of();
        long back = Math.max(0, o.reserved - Math.max(0, usedTokens));
        List<Decided> out = new ArrayList<>(0);
        for (Pending p : o.waiting) {
            if (p.done) continue;
            p.givenBack = saturatedAdd(p.givenBack, back);
            if (--p.outstanding == 0) out.add(decide(p));
        }
        s.pending.removeIf(p -> p.done);
        if (s.idle()) tenants.remove(tenant);
        return out;
    }

    /**
     * A refusal {@code shortfall} tokens short in a window of {@code windowMs}: decided at once when
     * no reservation of the tenant charged within the window is open here, else when they settle.
     * Returns the verdicts reached now (this one, and any given up to keep memory bounded).
     */
    public List<Decided> refused(String tenant, String tier, long shortfall, long windowMs, long nowMs) {
        List<Decided> out = new ArrayList<>(1);
        TenantState s = tenants.computeIfAbsent(tenant, t -> new TenantState());
        giveUp(s, nowMs, out);
        Pending p = new Pending(tier, Math.max(1, shortfall), nowMs);
        for (Open o : s.open.values()) {
            if (o.chargedAtMs <= nowMs - windowMs)
                continue; // already out of the window: its refund frees nothing there
            o.waiting.add(p);
            p.outstanding++;
        }
        if (p.outstanding == 0) {
            out.add(decide(p));
        } else {
            s.pending.addLast(p);
            while (s.pending.size() > MAX_PENDING) out.add(drop(s.pending.removeFirst()));
        }
        if (s.idle()) tenants.remove(tenant);
        return out;
    }

    /** Refusals waiting longer than {@link #GIVE_UP_MS}, across tenants, given up; tenants with nothing left dropped. */
    public List<Decided> expire(long nowMs) {
        List<Decided> out = new ArrayList<>(0);
        for (Iterator<TenantState> it = tenants.values().iterator(); it.hasNext(); ) {
            TenantState s = it.next();
            giveUp(s, nowMs, out);
            if (s.idle()) it.remove();
        }
        return out;
    }

    /** Refusals waiting for a verdict, all tenants. */
    public int pending() {
        int n = 0;
        for (TenantState s : tenants.values()) n += s.pending.size();
        return n;
    }

    private static void giveUp(TenantState s, long nowMs, List<Decided> out) {
        while (!s.pending.isEmpty() && nowMs - s.pending.peekFirst().atMs >= GIVE_UP_MS)
            out.add(drop(s.pending.removeFirst()));
    }

    private static Decided decide(Pending p) {
        p.done = true;
        return new Decided(p.tier, p.givenBack >= p.shortfall ? Verdict.UNNECESSARY : Verdict.NECESSARY);
    }

    private static Decided drop(Pending p) {
        p.done = true;
        return new Decided(p.tier, Verdict.UNDECIDED);
    }

    private static long saturatedAdd(long a, long b) {
        long s = a + b;
        return s < 0 ? Long.MAX_VALUE : s;
    }
}
