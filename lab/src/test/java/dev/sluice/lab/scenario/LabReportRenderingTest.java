package dev.sluice.lab.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.lab.provider.LabLimits;
import dev.sluice.lab.scenario.LabReport.CaseResult;
import dev.sluice.lab.scenario.LabReport.Failure;
import dev.sluice.lab.scenario.LabReport.RampResult;
import dev.sluice.lab.scenario.LabReport.Step;
import dev.sluice.lab.scenario.LabReport.TimelinePoint;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The table, the JSON (the admin UI's contract) and the chart, from a report made by hand. */
class LabReportRenderingTest {

    static LabReport report() {
        List<TimelinePoint> timeline = List.of(
                new TimelinePoint(0, 160_000, 160_000, 200, 100, 0),
                new TimelinePoint(1, 0, 160_000, 150, 0, 0),
                new TimelinePoint(2, 140_000, 300_000, 200, 125, 0));
        CaseResult case2 = new CaseResult(
                "case2",
                "All pages at once, nothing in front",
                3,
                15,
                2400,
                2122,
                25,
                3,
                0.9,
                0.81,
                new Failure(0.7, 3, "in_flight"),
                2100,
                2400,
                0,
                0,
                300_000,
                200,
                timeline);
        CaseResult case4 = new CaseResult(
                "case4",
                "The gateway's queue (Sluice)",
                3,
                64.2,
                600,
                0,
                6,
                6,
                1.44,
                0,
                null,
                3900,
                57_800,
                0,
                0,
                300_000,
                200,
                List.of(new TimelinePoint(0, 250_000, 250_000, 120, 0, 0)));
        RampResult ramp = new RampResult(
                "case2",
                new Failure(7.0, 3, "tokens"),
                List.of(new Step(0, 1), new Step(3, 2), new Step(6, 3)),
                300_000,
                200,
                timeline);
        return new LabReport(
                "2026-11-30T10:00:00Z",
                LabReport.Limits.of(LabLimits.DEFAULTS),
                new LabReport.Scale(5, "a note"),
                List.of(case2, case4),
                List.of(ramp));
    }

    @Test
    void theTableHasARowPerCaseWithTheSeedsColumnsAligned() {
        String table = LabReportTable.render(report());
        List<String> lines = table.lines().toList();
        assertThat(lines.get(0)).contains("300,000 tokens a minute", "200 in flight", "Time ×5");
        String header =
                lines.stream().filter(l -> l.startsWith("case ")).findFirst().orElseThrow();
        assertThat(header)
                .contains(
                        "pages sent",
                        "died at provider",
                        "books clean",
                        "bill $",
                        "wasted $",
                        "first failure",
                        "wait p50",
                        "wait p95",
                        "busy",
                        "limiter 429");
        String row2 =
                lines.stream().filter(l -> l.startsWith("case2 ")).findFirst().orElseThrow();
        String row4 =
                lines.stream().filter(l -> l.startsWith("case4 ")).findFirst().orElseThrow();
        assertThat(row2)
                .contains("2,400", "2,122", "3 of 25", "0.90", "0.81", "0.7 s, 3 users, in_flight", "2.1 s", "2.4 s");
        assertThat(row4).contains("6 of 6", "none", "3.9 s", "57.8 s");
        // Every column starts at the same place on every row of the table.
        assertThat(row2.indexOf('|')).isEqualTo(header.indexOf('|')).isEqualTo(row4.indexOf('|'));
        assertThat(row2.lastIndexOf('|')).isEqualTo(header.lastIndexOf('|'));
        assertThat(table).contains("Ramp (users added every step: 1, 2, 3)", "7.0 s, 3 users, tokens", "300,000");
    }

    @Test
    void theJsonHasExactlyTheContractsFields() {
        JsonNode json = JsonMapper.shared().readTree(LabReportJson.write(report()));
        assertThat(names(json)).containsExactly("generatedAt", "limits", "scale", "cases", "ramp");
        assertThat(names(json.get("limits")))
                .containsExactly(
                        "requestsPerMinute", "tokensPerMinute", "maxInFlight", "pricePerMillionTokens", "latencyMs");
        assertThat(names(json.get("scale"))).containsExactly("timeFactor", "note");
        JsonNode c = json.get("cases").get(0);
        assertThat(names(c))
                .containsExactly(
                        "id",
                        "title",
                        "users",
                        "durationSeconds",
                        "pagesSent",
                        "pagesDied",
                        "booksTotal",
                        "booksClean",
                        "billUsd",
                        "wastedUsd",
                        "firstFailure",
                        "waitP50Ms",
                        "waitP95Ms",
                        "busyAnswers",
                        "limiterRefusals",
                        "tokensPerMinuteLimit",
                        "inFlightLimit",
                        "timeline");
        assertThat(names(c.get("firstFailure"))).containsExactly("second", "users", "limit");
        assertThat(c.get("firstFailure").get("limit").asString()).isEqualTo("in_flight");
        assertThat(names(c.get("timeline").get(0)))
                .containsExactly(
                        "second", "admittedTokens", "tokensInWindow", "inFlight", "providerErrors", "refusals");
        assertThat(json.get("cases").get(1).get("firstFailure").isNull()).isTrue(); // present, as null
        JsonNode r = json.get("ramp").get(0);
        assertThat(names(r))
                .containsExactly("case", "firstFailure", "steps", "tokensPerMinuteLimit", "inFlightLimit", "timeline");
        assertThat(names(r.get("steps").get(0))).containsExactly("second", "users");
        assertThat(LabReportJson.read(LabReportJson.write(report()))).isEqualTo(report());
    }

    @Test
    void theChartIsOnePageWithAFigurePerCaseAndRampAndNothingFetched() {
        String html = LabReportChart.html(report());
        assertThat(html).startsWith("<!doctype html>").endsWith("</html>\n");
        assertThat(html.split("<svg ", -1)).hasSize(7); // two panels each: case2, case4, the ramp
        assertThat(html)
                .contains(
                        "TPM 300k",
                        "in flight 200",
                        "second 2: 300000 tokens in the trailing 60 s, 100% of the limit; 125 provider refusals, 0 ours",
                        "second 1: 150 calls in flight, 75% of the limit")
                .doesNotContain("<script", "src=\"http", "href=\"http");
        assertThat(html).contains("The gateway&#39;s queue".replace("&#39;", "'")); // titles escaped only where needed
    }

    @Test
    void aPanelDrawsItsLimitAtTheLimitsValueAndMarksTheSecondsAboveIt() {
        List<TimelinePoint> points = List.of(
                new TimelinePoint(0, 0, 250_000, 0, 0, 0),
                new TimelinePoint(1, 0, 300_000, 0, 1, 0),
                new TimelinePoint(2, 0, 320_000, 0, 2, 3));
        String svg = LabReportChart.svg(
                "tokens in the trailing 60 s",
                "TPM",
                points.stream().mapToLong(TimelinePoint::tokensInWindow).toArray(),
                300_000,
                points);
        // The axis tops at 500k (the next round number above 320k and 110% of the limit): the plot is 126 px tall
        // from y = 14, so 300k sits at 14 + 126 - 126 * 0.6 = 64.4.
        assertThat(svg).contains("y1=\"64.4\" y2=\"64.4\" stroke=\"#c0392b\"", "data-limit=\"300000\"");
        assertThat(svg.split("data-over=\"true\"", -1)).hasSize(2); // at the limit is not above it; 320k is
        assertThat(svg)
                .contains(
                        "second 2: 320000 tokens in the trailing 60 s, 107% of the limit",
                        "first above it at second 2", "above the limit from 2s");
        String calm =
                LabReportChart.svg("calls in flight", "in flight", new long[] {10, 200}, 200, points.subList(0, 2));
        assertThat(calm).contains("never above it").doesNotContain("data-over");
    }

    @Test
    void axisNumbersAreRoundAndShort() {
        assertThat(LabReportChart.niceCeiling(5_001)).isEqualTo(10_000);
        assertThat(LabReportChart.niceCeiling(160_000)).isEqualTo(200_000);
        assertThat(LabReportChart.niceCeiling(0)).isEqualTo(1);
        assertThat(LabReportChart.shortNumber(150_000)).isEqualTo("150k");
        assertThat(LabReportChart.shortNumber(2_500_000)).isEqualTo("2.5M");
        assertThat(LabReportChart.esc("<a & \"b\">")).isEqualTo("&lt;a &amp; &quot;b&quot;&gt;");
    }

    private static List<String> names(JsonNode node) {
        return node.propertyNames().stream().toList();
    }
}
