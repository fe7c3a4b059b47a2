package dev.sluice.lab.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.lab.scenario.LabReport.CaseResult;
import dev.sluice.lab.scenario.LabReport.TimelinePoint;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 15, item 2: case 4 across the minute's turn against a provider that does not share the
 * gateway's sense of time. Its clock runs a second behind, a request takes 600 ms to reach it
 * (the gateway charged the call that much before the provider counted it), and its answers take a
 * second more to come back; it also counts 15 % more than the estimator. Before the gateway
 * stamped its charges when the provider can count them, such a provider saw 429s in the seconds
 * after 60 s (the gateway's window let the first burst go before the provider's did); now none.
 * Seed counts divided by ten, time ×10, as in {@link LabScenariosTest}.
 */
class MinuteTurnTest {

    @Test
    void aProviderWithItsOwnClockAndSlowNetworkSeesNoPushBackAtTheMinutesTurn() {
        List<String> options = new ArrayList<>(LabScenariosTest.TENTH);
        options.addAll(List.of(
                "--cases=case4",
                "--ramp=false",
                "--upload-for=20",
                "--clock-offset=-1s",
                "--request-latency=600ms",
                "--extra-latency=1s",
                "--count-factor=1.15"));
        LabReport report = new ScenarioRunner(ScenarioSettings.defaults().with(options), null).run();
        CaseResult c = report.cases().get(0);
        List<TimelinePoint> timeline = c.timeline();
        System.out.printf(
                "[minute-turn] %d pages, %d died, first failure %s, most tokens in a provider minute %d of %d%n",
                c.pagesSent(),
                c.pagesDied(),
                c.firstFailure(),
                Timeline.maxWindowSum(timeline, 60),
                c.tokensPerMinuteLimit());

        // The run crossed the turn with the provider's minute spent: pages went out after 60 s...
        assertThat(timeline.stream()
                        .filter(p -> p.second() >= 60 && p.second() <= 70)
                        .mapToLong(TimelinePoint::admittedTokens)
                        .sum())
                .as("admitted in seconds 60-70")
                .isPositive();
        // ...and the minute before it was (nearly) full, so the turn was where the two windows had to agree.
        assertThat(Timeline.maxWindowSum(timeline, 60)).isGreaterThan(c.tokensPerMinuteLimit() * 8 / 10);
        assertThat(c.pagesDied()).isZero();
        assertThat(timeline.stream().mapToLong(TimelinePoint::providerErrors).sum())
                .isZero();
        assertThat(c.booksClean()).isEqualTo(c.booksTotal());
    }
}
