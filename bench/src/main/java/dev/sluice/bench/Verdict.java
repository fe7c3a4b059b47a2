package dev.sluice.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whether Sluice's overhead stays within its budget, judged from one run's curves:
 * <ul>
 *   <li>at 250, 500 and 1,000 req/s, Sluice's added p50 and added p99 are each at most 1.5× bare
 *       SCG's and at most SCG + RedisRateLimiter's ("added": the arm's percentile minus the
 *       direct arm's at the same rate, every round merged, as in the tables);</li>
 *   <li>Sluice sustains at least the highest rate bare SCG sustains (p99 under 5 ms, no errors,
 *       there and at every lower rate);</li>
 *   <li>Sluice's EVALSHA per request over all its measured slices is at most 1.5.</li>
 * </ul>
 * A figure that was not measured fails its criterion: a verdict needs the run to have had it.
 */
final class Verdict {
    static final List<Double> JUDGED_RATES = List.of(250.0, 500.0, 1000.0);
    static final double RATIO_LIMIT = 1.5;
    static final double EVALSHA_LIMIT = 1.5;

    /** What an arm adds to the direct arm at one rate, in ms; NaN when either was not measured there. */
    record Added(double p50, double p99) {
        static final Added NONE = new Added(Double.NaN, Double.NaN);

        boolean measured() {
            return !Double.isNaN(p50) && !Double.isNaN(p99);
        }
    }

    /** One judged rate: the three arms' added latency, Sluice over bare SCG, and what failed (empty: PASS). */
    record Row(double rate, Added sluice, Added scg, Added rrl, double p50Ratio, double p99Ratio, List<String> failed) {
        boolean pass() {
            return failed.isEmpty();
        }
    }

    final List<Row> rows;
    final double scgHighest;
    final double sluiceHighest;
    final boolean sustainPass;
    final double sluiceEvalsha;
    final double rrlEvalsha;
    final boolean evalshaPass;

    private Verdict(
            List<Row> rows,
            double scgHighest,
            double sluiceHighest,
            boolean sustainPass,
            double sluiceEvalsha,
            double rrlEvalsha,
            boolean evalshaPass) {
        this.rows = rows;
        this.scgHighest = scgHighest;
        this.sluiceHighest = sluiceHighest;
        this.sustainPass = sustainPass;
        this.sluiceEvalsha = sluiceEvalsha;
        this.rrlEvalsha = rrlEvalsha;
        this.evalshaPass = evalshaPass;
    }

    boolean pass() {
        return sustainPass && evalshaPass && rows.stream().allMatch(Row::pass);
    }

    static Verdict of(List<Curves.Curve> curves) {
        Curves.Curve direct = Curves.find(curves, "direct");
        Curves.Curve sluice = Curves.find(curves, "sluice");
        Curves.Curve scg = Curves.find(curves, "scg");
        Curves.Curve rrl = Curves.find(curves, "scg-rrl");
        List<Row> rows = new ArrayList<>();
        for (double rate : JUDGED_RATES) {
            Added s = added(sluice, direct, rate);
            Added g = added(scg, direct, rate);
            Added r = added(rrl, direct, rate);
            List<String> failed = new ArrayList<>();
            if (!s.measured()) failed.add("Sluice not measured");
            if (!g.measured()) failed.add("bare SCG not measured");
            if (!r.measured()) failed.add("SCG+RRL not measured");
            if (s.measured() && g.measured()) {
                if (s.p50 > RATIO_LIMIT * g.p50) failed.add("p50 > 1.5x SCG");
                if (s.p99 > RATIO_LIMIT * g.p99) failed.add("p99 > 1.5x SCG");
            }
            if (s.measured() && r.measured()) {
                if (s.p50 > r.p50) failed.add("p50 > SCG+RRL");
                if (s.p99 > r.p99) failed.add("p99 > SCG+RRL");
            }
            rows.add(new Row(rate, s, g, r, s.p50 / g.p50, s.p99 / g.p99, List.copyOf(failed)));
        }
        double scgHighest = scg == null ? Double.NaN : scg.highestSustained();
        double sluiceHighest = sluice == null ? Double.NaN : sluice.highestSustained();
        boolean sustainPass = scg != null && sluice != null && sluiceHighest >= scgHighest;
        double sluiceEvalsha = sluice == null ? Double.NaN : sluice.evalshaPerRequest();
        double rrlEvalsha = rrl == null ? Double.NaN : rrl.evalshaPerRequest();
        return new Verdict(
                rows,
                scgHighest,
                sluiceHighest,
                sustainPass,
                sluiceEvalsha,
                rrlEvalsha,
                sluiceEvalsha <= EVALSHA_LIMIT);
    }

    private static Added added(Curves.Curve arm, Curves.Curve direct, double rate) {
        Curves.Point a = arm == null ? null : arm.at(rate);
        Curves.Point d = direct == null ? null : direct.at(rate);
        return a == null || d == null ? Added.NONE : new Added(a.p50Ms() - d.p50Ms(), a.p99Ms() - d.p99Ms());
    }

    String text() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                Locale.ROOT,
                "Judged (issue 16): added = the arm's percentile minus direct's at the rate, rounds merged; "
                        + "PASS when Sluice's added p50 and p99 are each <= 1.5x bare SCG's and <= SCG+RRL's%n"));
        sb.append(String.format(
                Locale.ROOT,
                "  %6s  %-16s  %-16s  %-16s  %-18s  %s%n",
                "rate/s",
                "Sluice +p50/+p99",
                "SCG +p50/+p99",
                "RRL +p50/+p99",
                "Sluice/SCG p50,p99",
                "verdict"));
        for (Row row : rows) {
            sb.append(String.format(
                    Locale.ROOT,
                    "  %6.0f  %-16s  %-16s  %-16s  %-18s  %s%n",
                    row.rate,
                    pair(row.sluice),
                    pair(row.scg),
                    pair(row.rrl),
                    ratio(row.p50Ratio) + ", " + ratio(row.p99Ratio),
                    row.pass() ? "PASS" : "FAIL (" + String.join(", ", row.failed) + ")"));
        }
        sb.append(String.format(
                Locale.ROOT,
                "  Highest rate bare SCG sustains (p99 < %.0f ms, no errors, and every lower rate): %s; "
                        + "Sluice sustains %s: %s%n",
                OverheadBenchmark.P99_LIMIT_MS,
                rate(scgHighest),
                rate(sluiceHighest),
                sustainPass
                        ? (scgHighest == 0 ? "PASS (bare SCG sustained none: nothing to match)" : "PASS")
                        : "FAIL"));
        sb.append(String.format(
                Locale.ROOT,
                "  EVALSHA per request over all measured slices: Sluice %.2f (<= %.1f: %s), SCG+RRL %.2f%n",
                sluiceEvalsha,
                EVALSHA_LIMIT,
                evalshaPass ? "PASS" : "FAIL",
                rrlEvalsha));
        sb.append(String.format(Locale.ROOT, "  Overall: %s%n", pass() ? "PASS" : "FAIL"));
        return sb.toString();
    }

    Map<String, Object> json() {
        Map<String, Object> v = new LinkedHashMap<>();
        List<Map<String, Object>> perRate = new ArrayList<>();
        for (Row row : rows) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("rate", row.rate);
            r.put("sluice_added_p50_ms", finite(row.sluice.p50));
            r.put("sluice_added_p99_ms", finite(row.sluice.p99));
            r.put("scg_added_p50_ms", finite(row.scg.p50));
            r.put("scg_added_p99_ms", finite(row.scg.p99));
            r.put("scg_rrl_added_p50_ms", finite(row.rrl.p50));
            r.put("scg_rrl_added_p99_ms", finite(row.rrl.p99));
            r.put("sluice_over_scg_p50", finite(row.p50Ratio));
            r.put("sluice_over_scg_p99", finite(row.p99Ratio));
            r.put("pass", row.pass());
            r.put("failed", row.failed);
            perRate.add(r);
        }
        v.put("rates", perRate);
        v.put("scg_highest_sustained_rate", finite(scgHighest));
        v.put("sluice_highest_sustained_rate", finite(sluiceHighest));
        v.put("sluice_sustains_scg_rate", sustainPass);
        v.put("sluice_evalsha_per_request", finite(sluiceEvalsha));
        v.put("scg_rrl_evalsha_per_request", finite(rrlEvalsha));
        v.put("evalsha_within_limit", evalshaPass);
        v.put("pass", pass());
        return v;
    }

    /** JSON has no NaN: an unmeasured figure is null. */
    private static Double finite(double x) {
        return Double.isFinite(x) ? x : null;
    }

    private static String pair(Added a) {
        return a.measured() ? String.format(Locale.ROOT, "%+.2f / %+.2f", a.p50, a.p99) : "-";
    }

    private static String ratio(double x) {
        return Double.isFinite(x) ? String.format(Locale.ROOT, "%.2fx", x) : "-";
    }

    private static String rate(double r) {
        return Double.isNaN(r) ? "not measured" : r == 0 ? "none" : String.format(Locale.ROOT, "%.0f/s", r);
    }
}
