package dev.sluice.lab.scenario;

import dev.sluice.lab.scenario.LabReport.CaseResult;
import dev.sluice.lab.scenario.LabReport.Failure;
import dev.sluice.lab.scenario.LabReport.RampResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The lab report as the plain-text table the command prints, laid out like seed 000's. */
public final class LabReportTable {
    static final String[] HEADER = {
        "case",
        "users",
        "pages sent",
        "died at provider",
        "books clean",
        "bill $",
        "wasted $",
        "first failure",
        "wait p50",
        "wait p95",
        "busy",
        "limiter 429"
    };

    private LabReportTable() {}

    public static String render(LabReport report) {
        StringBuilder out = new StringBuilder();
        LabReport.Limits l = report.limits();
        out.append(String.format(
                Locale.ROOT,
                "Provider: %,d requests and %,d tokens a minute, %d in flight, $%.2f per million "
                        + "tokens, ~%d ms a call. Time ×%s, reported in seed units.%n%n",
                l.requestsPerMinute(),
                l.tokensPerMinute(),
                l.maxInFlight(),
                l.pricePerMillionTokens(),
                l.latencyMs(),
                factor(report.scale().timeFactor())));
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        for (CaseResult c : report.cases()) {
            rows.add(new String[] {
                c.id() + " " + c.title(),
                Integer.toString(c.users()),
                count(c.pagesSent()),
                count(c.pagesDied()),
                c.booksClean() + " of " + c.booksTotal(),
                money(c.billUsd()),
                money(c.wastedUsd()),
                failure(c.firstFailure()),
                duration(c.waitP50Ms()),
                duration(c.waitP95Ms()),
                count(c.busyAnswers()),
                count(c.limiterRefusals())
            });
        }
        out.append(grid(rows));
        if (!report.ramp().isEmpty()) {
            out.append(String.format(
                    Locale.ROOT,
                    "%nRamp (users added every step: %s):%n",
                    steps(report.ramp().get(0))));
            List<String[]> ramp = new ArrayList<>();
            ramp.add(new String[] {"case", "first failure", "most tokens in any 60 s", "provider limit"});
            for (RampResult r : report.ramp()) {
                ramp.add(new String[] {
                    r.caseId(),
                    failure(r.firstFailure()),
                    count(Timeline.peakWindow(r.timeline())),
                    count(r.tokensPerMinuteLimit())
                });
            }
            out.append(grid(ramp));
        }
        return out.toString();
    }

    /** "0.4 s, 3 users, in_flight", or "none". */
    static String failure(Failure f) {
        if (f == null) return "none";
        return String.format(
                Locale.ROOT, "%.1f s, %d %s, %s", f.second(), f.users(), f.users() == 1 ? "user" : "users", f.limit());
    }

    static String duration(long ms) {
        return ms < 1000 ? ms + " ms" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    private static String money(double usd) {
        return String.format(Locale.ROOT, "%.2f", usd);
    }

    private static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    private static String factor(double f) {
        return f == Math.rint(f) ? Long.toString((long) f) : Double.toString(f);
    }

    private static String steps(RampResult r) {
        StringBuilder s = new StringBuilder();
        for (LabReport.Step step : r.steps()) {
            if (s.length() > 0) s.append(", ");
            s.append(step.users());
        }
        return s.toString();
    }

    /** Columns padded to their widest cell; numbers right-aligned, text left. */
    static String grid(List<String[]> rows) {
        int cols = rows.get(0).length;
        int[] width = new int[cols];
        for (String[] r : rows) for (int i = 0; i < cols; i++) width[i] = Math.max(width[i], r[i].length());
        StringBuilder out = new StringBuilder();
        for (int k = 0; k < rows.size(); k++) {
            String[] r = rows.get(k);
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < cols; i++) {
                if (i > 0) line.append(" | ");
                boolean right = k > 0 && i > 0 && r[i].matches("[-0-9.,$ ]+( ms| s)?");
                line.append(right ? pad(r[i], width[i], true) : pad(r[i], width[i], false));
            }
            out.append(line.toString().stripTrailing()).append('\n');
            if (k == 0) {
                StringBuilder rule = new StringBuilder();
                for (int i = 0; i < cols; i++) {
                    if (i > 0) rule.append("-+-");
                    rule.append("-".repeat(width[i]));
                }
                out.append(rule).append('\n');
            }
        }
        return out.toString();
    }

    private static String pad(String s, int width, boolean right) {
        String fill = " ".repeat(Math.max(0, width - s.length()));
        return right ? fill + s : s + fill;
    }
}
