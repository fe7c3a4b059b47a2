package dev.sluice.lab.scenario;

import dev.sluice.lab.scenario.LabReport.TimelinePoint;
import java.util.List;
import java.util.Locale;

/**
 * The lab report as one self-contained HTML page (inline SVG, no script, nothing fetched): per
 * case and per ramp, the tokens the provider admitted each second against its limit per second,
 * the average over the trailing minute (what the provider's rolling window compares with its
 * limit), and the seconds in which pages were refused, at the provider or on our side.
 */
public final class LabReportChart {
    static final int WIDTH = 760;
    static final int HEIGHT = 220;
    static final int LEFT = 64;
    static final int RIGHT = 12;
    static final int TOP = 14;
    static final int BOTTOM = 40;

    private LabReportChart() {
    }

    public static String html(LabReport report) {
        StringBuilder out = new StringBuilder();
        out.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sluice lab report ")
                .append(esc(report.generatedAt())).append("</title>\n<style>")
                .append("body{font:14px/1.45 system-ui,sans-serif;max-width:800px;margin:2rem auto;padding:0 1rem;color:#222}")
                .append("h2{font-size:1.05rem;margin:1.6rem 0 .2rem}p.m{margin:.1rem 0 .4rem;color:#555}")
                .append("pre{font-size:11px;overflow-x:auto;background:#f6f6f6;padding:.6rem}")
                .append(".k span{display:inline-block;width:.8em;height:.8em;margin:0 .3em 0 1em;vertical-align:middle}")
                .append("</style></head><body>\n<h1>Sluice lab report</h1>\n<p class=\"m\">")
                .append(esc(report.generatedAt())).append(" · ").append(esc(report.scale().note())).append("</p>\n")
                .append("<p class=\"k\"><span style=\"background:#4a7bd0\"></span>tokens admitted by the provider each second")
                .append("<span style=\"background:#1a1a1a;height:2px\"></span>trailing 60 s average")
                .append("<span style=\"background:#c0392b;height:2px\"></span>the provider's limit per second")
                .append("<span style=\"background:#e74c3c\"></span>provider refusals")
                .append("<span style=\"background:#f39c12\"></span>our refusals (limiter, busy, pool)</p>\n")
                .append("<pre>").append(esc(LabReportTable.render(report))).append("</pre>\n");
        for (LabReport.CaseResult c : report.cases()) {
            out.append("<h2>").append(esc(c.id() + " · " + c.title())).append("</h2>\n<p class=\"m\">")
                    .append(esc(c.users() + (c.users() == 1 ? " user" : " users") + " · first failure: "
                            + LabReportTable.failure(c.firstFailure()) + " · " + c.booksClean() + " of " + c.booksTotal()
                            + " books clean")).append("</p>\n")
                    .append(svg(c.timeline(), c.tokensPerSecondLimit()));
        }
        for (LabReport.RampResult r : report.ramp()) {
            out.append("<h2>").append(esc(r.caseId() + " · ramp")).append("</h2>\n<p class=\"m\">")
                    .append(esc("first failure: " + LabReportTable.failure(r.firstFailure()))).append("</p>\n")
                    .append(svg(r.timeline(), r.tokensPerSecondLimit()));
        }
        return out.append("</body></html>\n").toString();
    }

    /** One timeline: bars for admitted tokens, the trailing-minute average, the limit, refusal marks below the axis. */
    static String svg(List<TimelinePoint> points, double limitPerSecond) {
        int n = Math.max(1, points.size());
        long peak = 0;
        for (TimelinePoint p : points) peak = Math.max(peak, p.admittedTokens());
        double top = niceCeiling(Math.max(peak, limitPerSecond * 1.2));
        double plotW = WIDTH - LEFT - RIGHT;
        double plotH = HEIGHT - TOP - BOTTOM;
        double barW = plotW / n;
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" role=\"img\" font-size=\"10\" font-family=\"system-ui,sans-serif\">%n", WIDTH, HEIGHT, WIDTH, HEIGHT));
        // y axis: four gridlines
        for (int i = 0; i <= 4; i++) {
            double v = top * i / 4;
            double y = TOP + plotH - plotH * i / 4;
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT, WIDTH - RIGHT, y, y, LEFT - 4, y + 3, shortNumber(v)));
        }
        // bars
        for (int i = 0; i < points.size(); i++) {
            TimelinePoint p = points.get(i);
            double h = plotH * p.admittedTokens() / top;
            s.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#4a7bd0\">"
                            + "<title>second %d: %d tokens admitted, %d provider refusals, %d ours</title></rect>%n",
                    LEFT + i * barW, TOP + plotH - h, Math.max(0.5, barW - 1), h, p.second(), p.admittedTokens(),
                    p.providerErrors(), p.refusals()));
            if (p.providerErrors() > 0) mark(s, LEFT + i * barW, barW, TOP + plotH + 4, "#e74c3c");
            if (p.refusals() > 0) mark(s, LEFT + i * barW, barW, TOP + plotH + 10, "#f39c12");
        }
        // trailing-minute average
        StringBuilder path = new StringBuilder();
        long sum = 0;
        for (int i = 0; i < points.size(); i++) {
            sum += points.get(i).admittedTokens();
            if (i >= 60) sum -= points.get(i - 60).admittedTokens();
            double y = TOP + plotH - plotH * (sum / 60.0) / top;
            path.append(i == 0 ? "M" : "L").append(String.format(Locale.ROOT, "%.1f %.1f", LEFT + (i + 1) * barW, y));
        }
        if (path.length() > 0) s.append("<path d=\"").append(path).append("\" fill=\"none\" stroke=\"#1a1a1a\" stroke-width=\"1.5\"/>\n");
        double ly = TOP + plotH - plotH * limitPerSecond / top;
        s.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" stroke-width=\"1.5\" "
                + "stroke-dasharray=\"5 3\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#c0392b\">limit %s/s</text>%n",
                LEFT, WIDTH - RIGHT, ly, ly, WIDTH - RIGHT, ly - 3, shortNumber(limitPerSecond)));
        // x axis: a label every 5 or 10 seconds, whichever keeps them apart
        int every = n <= 40 ? 5 : n <= 120 ? 10 : 30;
        for (int sec = 0; sec <= n; sec += every) {
            double x = LEFT + sec * barW;
            s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%ds</text>%n", x, HEIGHT - 8, sec));
        }
        return s.append("</svg>\n").toString();
    }

    private static void mark(StringBuilder s, double x, double w, double y, String colour) {
        s.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"4\" fill=\"%s\"/>%n",
                x, y, Math.max(0.5, w - 1), colour));
    }

    /** 1, 2 or 5 times a power of ten, at least {@code v}. */
    static double niceCeiling(double v) {
        if (v <= 0) return 1;
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[]{1, 2, 5, 10}) if (m * p >= v) return m * p;
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
