package dev.sluice.gateway.abuse;

import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.QuotaScope;
import dev.sluice.gateway.quota.WindowUsage;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the quota answered a tenant in one minute, as counters that add up across replicas and
 * flushes: per window, how many answers, the sum and the peak of its fill after each (parts
 * per million of the cap), the least room left after an admission (tokens and requests), and
 * how many requests it refused or held; per tenant, how many requests asked and their tokens.
 * Counters are named {@code "<window> <metric>"} ({@code "* asked"} for the tenant's own);
 * each metric merges by sum, max or min ({@link #merge}), which the Redis script mirrors.
 */
public final class Pressure {
    public static final String ALL = "*";
    public static final String ANSWERS = "answers";
    public static final String FILL = "fill";
    public static final String PEAK = "peak";
    public static final String ROOM = "room";
    public static final String ROOM_REQUESTS = "room-requests";
    public static final String REFUSED = "refused";
    public static final String HELD = "held";
    public static final String ASKED = "asked";
    public static final String ASKED_TOKENS = "asked-tokens";

    private Pressure() {}

    public enum Op {
        SUM,
        MAX,
        MIN
    }

    public static String key(String window, String metric) {
        return window + " " + metric;
    }

    /** The metric of a counter's name: what follows the last space. */
    public static String metricOf(String key) {
        return key.substring(key.lastIndexOf(' ') + 1);
    }

    public static Op op(String key) {
        return switch (metricOf(key)) {
            case PEAK -> Op.MAX;
            case ROOM, ROOM_REQUESTS -> Op.MIN;
            default -> Op.SUM;
        };
    }

    /** The value a counter holds before anything is merged into it. */
    public static long identity(String key) {
        return op(key) == Op.MIN ? Long.MAX_VALUE : 0L;
    }

    /** Merges {@code b} into {@code a}; sums saturate. */
    public static long merge(String key, long a, long b) {
        return switch (op(key)) {
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case SUM -> {
                long r = a + b;
                yield ((a ^ r) & (b ^ r)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
            }
        };
    }

    /** Parts per million of a share (Math.round saturates; sums of them saturate in {@link #merge}). */
    static long ppm(double share) {
        return share > 0 ? Math.round(share * 1_000_000d) : 0;
    }

    /**
     * The counters one answer adds: every window's fill after it; for an admission, the room it
     * left; for a refusal or a hold, one against the window that blocked ({@code held}: the ladder
     * holds the request rather than refusing it).
     */
    public static Map<String, Long> of(QuotaDecision d, long requestTokens, boolean held) {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put(key(ALL, ASKED), 1L);
        out.put(key(ALL, ASKED_TOKENS), Math.max(0, requestTokens));
        // The tenant's own tier ceiling is what abuse is measured against: a key's or an organisation's
        // windows (QuotaScope) are left out, and a member's windows are read by the tier's names.
        for (WindowUsage w : d.windows()) {
            QuotaScope.Level level = QuotaScope.levelOf(w.name());
            if (level.kind() != QuotaScope.Kind.TENANT) continue;
            String name = level.base();
            long fill = ppm(w.utilisation());
            out.put(key(name, ANSWERS), 1L);
            out.put(key(name, FILL), fill);
            out.put(key(name, PEAK), fill);
            if (d.admitted()) {
                out.put(key(name, ROOM), w.remainingTokens());
                out.put(key(name, ROOM_REQUESTS), w.remainingRequests());
            }
        }
        if (!d.admitted() && d.blocking() != null) {
            QuotaScope.Level level = QuotaScope.levelOf(d.blocking());
            if (level.kind() == QuotaScope.Kind.TENANT) out.put(key(level.base(), held ? HELD : REFUSED), 1L);
        }
        return out;
    }
}
