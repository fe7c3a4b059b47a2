package dev.sluice.lab.scenario;

import dev.sluice.lab.scenario.LabReport.TimelinePoint;
import java.util.List;
import java.util.Locale;

/**
 * The lab report as one self-contained HTML page (inline SVG, no script, nothing fetched): per
 * case and per ramp two panels in the provider's own measure. The tokens its rolling window held
 * against its tokens per minute, and the calls it had in flight against its in-flight cap, each
 * second at its fullest; seconds above a limit are marked, and the seconds in which pages were
 * refused (at the provider, or on our side) are ticks under the axis.
 */
public final class LabReportChart {
    static final int WIDTH = 760;
    static final int HEIGHT = 180;
    static final int LEFT = 64;
    static final int RIGHT = 12;
    static final int TOP = 14;
    static final int BOTTOM = 40;
    static final String BAR = "#4a7bd0";
    static final String OVER = "#8e1b10";
    static final String LIMIT = "#c0392b";

    private LabReportChart() {}

    public static String html(LabReport report) {
        StringBuilder out = new StringBuilder();
        out.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sluice lab report ")
                .append(esc(report.generatedAt()))
                .append("</title>\n<style>")
                .append(
                        "body{font:14px/1.45 system-ui,sans-serif;max-width:800px;margin:2rem auto;padding:0 1rem;color:#222}")
                .append("h2{font-size:1.05rem;margin:1.6rem 0 .2rem}p.m{margin:.1rem 0 .4rem;color:#555}")
                .append("pre{font-size:11px;overflow-x:auto;background:#f6f6f6;padding:.6rem}")
                .append(
                        ".k span{display:inline-block;width:.8em;height:.8em;margin:0 .3em 0 1em;vertical-align:middle}")
                .append("</style></head><body>\n<h1>Sluice lab report</h1>\n<p class=\"m\">")
                .append(esc(report.generatedAt()))
                .append(" · ")
                .append(esc(report.scale().note()))
                .append("</p>\n")
                .append("<p class=\"k\"><span style=\"background:" + BAR
                        + "\"></span>what the provider counted: tokens in its ")
                .append("trailing 60 s window, calls in flight (each second at its fullest)")
                .append("<span style=\"background:" + LIMIT
                        + ";height:2px\"></span>its limit (tokens per minute, in flight)")
                .append("<span style=\"background:" + OVER + "\"></span>above the limit")
                .append("<span style=\"background:#e74c3c\"></span>provider refusals")
                .append("<span style=\"background:#f39c12\"></span>our refusals (limiter, busy, pool)</p>\n")
                .append("<pre>")
                .append(esc(LabReportTable.render(report)))
                .append("</pre>\n");
        for (LabReport.CaseResult c : report.cases()) {
            out.append("<h2>")
                    .append(esc(c.id() + " · " + c.title()))
                    .append("</h2>\n<p class=\"m\">")
                    .append(esc(c.users() + (c.users() == 1 ? " user" : " users") + " · first failure: "
                            + LabReportTable.failure(c.firstFailure()) + " · " + c.booksClean() + " of "
                            + c.booksTotal()
                            + " books clean"))
                    .append("</p>\n")
                    .append(panels(c.timeline(), c.tokensPerMinuteLimit(), c.inFlightLimit()));
        }
        for (LabReport.RampResult r : report.ramp()) {
            out.append("<h2>")
                    .append(esc(r.caseId() + " · ramp"))
                    .append("</h2>\n<p class=\"m\">")
                    .append(esc("first failure: " + LabReportTable.failure(r.firstFailure())))
                    .append("</p>\n")
                    .append(panels(r.timeline(), r.tokensPerMinuteLimit(), r.inFlightLimit()));
        }
        return out.append("</body></html>\n").toString();
    }

    /** A case's two panels: the token window against tokens per minute, calls in flight against the cap. */
    static String panels(List<TimelinePoint> points, long tokensPerMinute, int maxInFlight) {
        long[] window = points.stream().mapToLong(TimelinePoint::tokensInWindow).toArray();
        long[] inFlight = points.stream().mapToLong(TimelinePoint::inFlight).toArray();
        return svg("tokens in the trailing 60 s", "TPM", window, tokensPerMinute, points)
                + svg("calls in flight", "in flight", inFlight, maxInFlight, points);
    }

    /** One panel: a column per second, the limit as a dashed line, columns above it marked, refusal ticks below the axis. */
    static String svg(String what, String limitName, long[] values, long limit, List<TimelinePoint> points) {
        int n = Math.max(1, values.length);
        long peak = 0;
        for (long v : values) peak = Math.max(peak, v);
        double top = niceCeiling(Math.max(peak, limit * 1.1));
        double plotW = WIDTH - LEFT - RIGHT;
        double plotH = HEIGHT - TOP - BOTTOM;
        double barW = plotW / n;
        int over = firstOver(values, limit);
        String summary = what + " against the " + limitName + " limit of " + shortNumber(limit)
                + (over < 0 ? ", never above it" : ", first above it at second " + over);
        StringBuilder s = new StringBuilder();
        s.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                        + "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\" font-size=\"10\" font-family=\"system-ui,sans-serif\">%n",
                WIDTH,
                HEIGHT,
                WIDTH,
                HEIGHT,
                esc(summary)));
        s.append("<title>").append(esc(summary)).append("</title>\n");
        // y axis: four gridlines
        for (int i = 0; i <= 4; i++) {
            double v = top * i / 4;
            double y = TOP + plotH - plotH * i / 4;
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                            + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                    LEFT,
                    WIDTH - RIGHT,
                    y,
                    y,
                    LEFT - 4,
                    y + 3,
                    shortNumber(v)));
        }
        for (int i = 0; i < values.length; i++) {
            TimelinePoint p = points.get(i);
            double h = plotH * values[i] / top;
            boolean above = values[i] > limit;
            s.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s>"
                            + "<title>second %d: %d %s, %s of the limit; %d provider refusals, %d ours</title></rect>%n",
                    LEFT + i * barW,
                    TOP + plotH - h,
                    Math.max(0.5, barW - 1),
                    h,
                    above ? OVER : BAR,
                    above ? " data-over=\"true\"" : "",
                    p.second(),
                    values[i],
                    what,
                    percent(values[i], limit),
                    p.providerErrors(),
                    p.refusals()));
            if (p.providerErrors() > 0) mark(s, LEFT + i * barW, barW, TOP + plotH + 4, "#e74c3c");
            if (p.refusals() > 0) mark(s, LEFT + i * barW, barW, TOP + plotH + 10, "#f39c12");
        }
        double ly = TOP + plotH - plotH * limit / top;
        s.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" "
                        + "stroke-dasharray=\"5 3\" data-limit=\"%d\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">%s %s</text>%n",
                LEFT,
                WIDTH - RIGHT,
                ly,
                ly,
                LIMIT,
                limit,
                WIDTH - RIGHT,
                ly - 3,
                LIMIT,
                limitName,
                shortNumber(limit)));
        if (over >= 0) {
            double x = LEFT + over * barW;
            s.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" fill=\"%s\">▲ above the limit from %ds</text>%n",
                    x,
                    TOP + 10,
                    OVER,
                    over));
        }
        // x axis: a label every 5, 10 or 30 seconds, whichever keeps them apart
        int every = n <= 40 ? 5 : n <= 120 ? 10 : 30;
        for (int sec = 0; sec <= n; sec += every) {
            double x = LEFT + sec * barW;
            s.append(String.format(
                    Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%ds</text>%n", x, HEIGHT - 8, sec));
        }
        return s.append("</svg>\n").toString();
    }

    /** The first index whose value is above {@code limit}; -1 if none is. */
    static int firstOver(long[] values, long limit) {
        for (int i = 0; i < values.length; i++) if (values[i] > limit) return i;
        return -1;
    }

    static String percent(long value, long limit) {
        if (limit <= 0) return "–";
        return Math.round(100.0 * value / limit) + "%";
    }

    private static void mark(StringBuilder s, double x, double w, double y, String colour) {
        s.append(String.format(
                Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"4\" fill=\"%s\"/>%n",
                x,
                y,
                Math.max(0.5, w - 1),
                colour));
    }

    /** 1, 2 or 5 times a power of ten, at least {@code v}. */
    static double niceCeiling(double v) {
        if (v <= 0) return 1;
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 5, 10}) if (m * p >= v) return m * p;
        return 10 * p;
    }

    static String shortNumber(double v) {
        if (v >= 1_000_000) return trim(v / 1_000_000) + "M";
        if (v >= 1_000) return trim(v / 1_000) + "k";
        return trim(v);
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
