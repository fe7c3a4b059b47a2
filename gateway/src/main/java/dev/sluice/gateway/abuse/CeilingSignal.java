package dev.sluice.gateway.abuse;

import dev.sluice.gateway.quota.WindowUsage;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The per-minute abuse signal, pure: how hard a tenant pressed on each of its windows during
 * the minute, from the quota's answers ({@link Pressure} counters), not from one snapshot as the
 * minute ends. A window can only hold whole requests, so a tenant pinned to its cap reads
 * anywhere from one request under it to full at any instant; what does not depend on that luck:
 * <ul>
 *   <li>the window refused or held one of its requests: it was at the ceiling;</li>
 *   <li>after an admission, the window had less room than the tenant's typical request: its next
 *       request would not fit, so it was at the ceiling too;</li>
 *   <li>otherwise, the window's fill: the higher of its mean over the minute's answers and what it
 *       holds as the minute ends (for the minute window, what the tenant used in the minute: a tenant
 *       pacing itself just under its cap counts from its first minute, when its mean is still low).</li>
 * </ul>
 * Every window is measured the same way; the sample keeps the one that pressed hardest.
 */
public final class CeilingSignal {
    private CeilingSignal() {}

    /**
     * The minute's measure, or empty when the quota answered the tenant nothing in it.
     *
     * @param counters the minute's {@link Pressure} counters for the tenant
     * @param atEnd    its windows as the minute ended
     */
    public static Optional<Ceiling> measure(Map<String, Long> counters, List<WindowUsage> atEnd) {
        long asked = counters.getOrDefault(Pressure.key(Pressure.ALL, Pressure.ASKED), 0L);
        long typical =
                asked == 0 ? 0 : counters.getOrDefault(Pressure.key(Pressure.ALL, Pressure.ASKED_TOKENS), 0L) / asked;
        TreeSet<String> windows = new TreeSet<>();
        for (String k : counters.keySet()) {
            int sp = k.lastIndexOf(' ');
            if (sp > 0 && !k.substring(0, sp).equals(Pressure.ALL)) windows.add(k.substring(0, sp));
        }
        Ceiling best = null;
        for (String w : windows) {
            double end = 0;
            for (WindowUsage u : atEnd) if (u.name().equals(w)) end = u.utilisation();
            Ceiling c = window(w, counters, typical, end);
            if (c != null
                    && (best == null
                            || c.pressure() > best.pressure()
                            || (c.pressure() == best.pressure() && c.fill() > best.fill()))) best = c;
        }
        return Optional.ofNullable(best);
    }

    private static Ceiling window(String w, Map<String, Long> c, long typical, double atEnd) {
        long answers = c.getOrDefault(Pressure.key(w, Pressure.ANSWERS), 0L);
        long refused = c.getOrDefault(Pressure.key(w, Pressure.REFUSED), 0L);
        long held = c.getOrDefault(Pressure.key(w, Pressure.HELD), 0L);
        if (answers == 0 && refused == 0 && held == 0) return null;
        double fill =
                answers == 0 ? 0 : c.getOrDefault(Pressure.key(w, Pressure.FILL), 0L) / (double) answers / 1_000_000d;
        double peak = c.getOrDefault(Pressure.key(w, Pressure.PEAK), 0L) / 1_000_000d;
        long room = c.getOrDefault(Pressure.key(w, Pressure.ROOM), Long.MAX_VALUE);
        long roomRequests = c.getOrDefault(Pressure.key(w, Pressure.ROOM_REQUESTS), Long.MAX_VALUE);
        boolean admitted = room != Long.MAX_VALUE;
        String reason = refused > 0
                ? Ceiling.REFUSED
                : held > 0
                        ? Ceiling.HELD
                        : admitted && (room < typical || roomRequests < 1) ? Ceiling.ROOM : Ceiling.FILL;
        double pressure = reason.equals(Ceiling.FILL) ? Math.max(fill, atEnd) : Math.max(1.0, Math.max(fill, atEnd));
        return new Ceiling(
                w, round(fill), round(peak), admitted ? room : -1, typical, refused, held, reason, round(pressure));
    }

    private static double round(double v) {
        return Math.round(v * 10_000) / 10_000.0;
    }
}
