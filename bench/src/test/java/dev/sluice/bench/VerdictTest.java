package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Locale;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The judged summary (the overhead criteria, each passed or failed), from a small fixed overhead.json (the form a redraw reads). */
class VerdictTest {

    /** One arm's rates: [rate, p50, p99, passes (1/0), sent, evalsha]. */
    private static String arm(String key, double[]... rates) {
        StringBuilder sb = new StringBuilder("\"" + key + "\":{\"label\":\"" + key + "\",\"rates\":[");
        for (int i = 0; i < rates.length; i++) {
            double[] r = rates[i];
            sb.append(i == 0 ? "" : ",")
                    .append(String.format(
                            Locale.ROOT,
                            "{\"rate\":%.1f,\"p50_ms\":%s,\"p99_ms\":%s,\"passes\":%s,\"sent\":%d,\"redis_evalsha\":%d}",
                            r[0],
                            r[1],
                            r[2],
                            r[3] == 1,
                            (long) r[4],
                            (long) r[5]));
        }
        return sb.append("]}").toString();
    }

    private static Verdict verdict(String... arms) {
        return Verdict.of(
                Curves.fromJson(JsonMapper.builder().build().readTree("{\"arms\":{" + String.join(",", arms) + "}}")));
    }

    private static final String DIRECT = arm(
            "direct",
            new double[] {250, 0.30, 1.00, 1, 3000, 0},
            new double[] {500, 0.30, 1.00, 1, 6000, 0},
            new double[] {1000, 0.30, 1.00, 1, 12000, 0},
            new double[] {2000, 0.30, 1.20, 1, 24000, 0});
    private static final String SCG = arm(
            "scg",
            new double[] {250, 0.70, 2.00, 1, 3000, 0},
            new double[] {500, 0.70, 2.00, 1, 6000, 0},
            new double[] {1000, 0.80, 3.00, 1, 12000, 0},
            new double[] {2000, 1.00, 9.00, 0, 24000, 0});
    private static final String RRL = arm(
            "scg-rrl",
            new double[] {250, 0.90, 2.50, 1, 3000, 3000},
            new double[] {500, 1.00, 2.50, 1, 6000, 6000},
            new double[] {1000, 1.00, 4.00, 1, 12000, 12000});

    @Test
    void sluiceWithinOneAndAHalfBareScgAndUnderTheLimiterAtEveryRatePasses() {
        // Added p50/p99 over direct: Sluice +0.5/+1.4, +0.5/+1.4, +0.6/+2.5; SCG +0.4/+1.0, +0.4/+1.0, +0.5/+2.0.
        Verdict v = verdict(
                DIRECT,
                SCG,
                RRL,
                arm(
                        "sluice",
                        new double[] {250, 0.80, 2.40, 1, 3000, 3000},
                        new double[] {500, 0.80, 2.40, 1, 6000, 6600},
                        new double[] {1000, 0.90, 3.50, 1, 12000, 14400},
                        new double[] {2000, 1.10, 8.00, 0, 24000, 24000}));

        assertThat(v.rows).extracting(Verdict.Row::rate).containsExactly(250.0, 500.0, 1000.0);
        Verdict.Row at1000 = v.rows.get(2);
        assertThat(at1000.sluice().p50()).isCloseTo(0.60, within(1e-9));
        assertThat(at1000.sluice().p99()).isCloseTo(2.50, within(1e-9));
        assertThat(at1000.scg().p99()).isCloseTo(2.00, within(1e-9));
        assertThat(at1000.rrl().p99()).isCloseTo(3.00, within(1e-9));
        assertThat(at1000.p50Ratio()).isCloseTo(1.2, within(1e-9));
        assertThat(at1000.p99Ratio()).isCloseTo(1.25, within(1e-9));
        assertThat(v.rows).allMatch(Verdict.Row::pass);
        assertThat(v.scgHighest).isEqualTo(1000.0);
        assertThat(v.sluiceHighest).isEqualTo(1000.0);
        assertThat(v.sustainPass).isTrue();
        // 48,000 EVALSHA over 45,000 requests, every slice of the Sluice arm; the RRL arm's own figure is 1.
        assertThat(v.sluiceEvalsha).isCloseTo(48_000.0 / 45_000, within(1e-9));
        assertThat(v.rrlEvalsha).isEqualTo(1.0);
        assertThat(v.pass()).isTrue();
        assertThat(v.text()).contains("Overall: PASS");
        assertThat(v.json()).containsEntry("pass", true);
    }

    @Test
    void eachCriterionFailsOnItsOwn() {
        // 250: p99 +3.0 > 1.5 x SCG's +1.0 and > RRL's +1.5. 500: p50 +0.65 > 1.5 x SCG's +0.4, under RRL's +0.7.
        // 1000: p99 misses 5 ms, so Sluice sustains only 500 where SCG sustains 1000. 4 EVALSHA a request.
        Verdict v = verdict(
                DIRECT,
                SCG,
                RRL,
                arm(
                        "sluice",
                        new double[] {250, 0.80, 4.00, 1, 3000, 12000},
                        new double[] {500, 0.95, 2.40, 1, 6000, 24000},
                        new double[] {1000, 0.90, 6.00, 0, 12000, 48000}));

        assertThat(v.rows.get(0).failed()).containsExactly("p99 > 1.5x SCG", "p99 > SCG+RRL");
        assertThat(v.rows.get(1).failed()).containsExactly("p50 > 1.5x SCG");
        assertThat(v.rows.get(2).failed()).contains("p99 > 1.5x SCG", "p99 > SCG+RRL");
        assertThat(v.sluiceHighest).isEqualTo(500.0);
        assertThat(v.sustainPass).isFalse();
        assertThat(v.sluiceEvalsha).isEqualTo(4.0);
        assertThat(v.evalshaPass).isFalse();
        assertThat(v.pass()).isFalse();
        assertThat(v.text()).contains("Overall: FAIL");
    }

    @Test
    void aRateOrAnArmTheRunDidNotHaveFailsRatherThanPassing() {
        // A quick run: 250 and 1000 only, and no RedisRateLimiter arm.
        Verdict v = verdict(
                arm("direct", new double[] {250, 0.3, 1.0, 1, 100, 0}, new double[] {1000, 0.3, 1.0, 1, 100, 0}),
                arm("scg", new double[] {250, 0.7, 2.0, 1, 100, 0}, new double[] {1000, 0.7, 2.0, 1, 100, 0}),
                arm("sluice", new double[] {250, 0.7, 2.0, 1, 100, 100}, new double[] {1000, 0.7, 2.0, 1, 100, 100}));

        assertThat(v.rows.get(0).failed()).containsExactly("SCG+RRL not measured");
        assertThat(v.rows.get(1).failed()).contains("Sluice not measured", "bare SCG not measured");
        assertThat(v.rrlEvalsha).isNaN();
        assertThat(v.json()).containsEntry("scg_rrl_evalsha_per_request", null);
        assertThat(v.pass()).isFalse();
    }
}
