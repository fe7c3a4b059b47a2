package dev.sluice.bench;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * What the verdict and the chart need of a run, per arm and rate, whether it comes from the arms
 * just measured or from an {@code overhead.json} written earlier: so that both can be redrawn
 * without rerunning, and tested on a small fixed run.
 */
final class Curves {
    private Curves() {}

    /** One arm's figures at one rate (every round merged). */
    record Point(double rate, double p50Ms, double p99Ms, boolean passes, long sent, long evalsha) {}

    /** One arm's points, in the order of the rates (ascending). */
    record Curve(String key, String label, List<Point> points) {
        Point at(double rate) {
            for (Point p : points) if (p.rate == rate) return p;
            return null;
        }

        /** The highest rate passed (p99 under the limit, no error) with every lower rate passed too; 0 when none. */
        double highestSustained() {
            double best = 0;
            for (Point p : points) {
                if (!p.passes) break;
                best = p.rate;
            }
            return best;
        }

        /** EVALSHA per request over every slice of this arm (-1 counts as unknown: NaN). */
        double evalshaPerRequest() {
            long sent = 0;
            long evalsha = 0;
            for (Point p : points) {
                if (p.evalsha < 0) return Double.NaN;
                sent += p.sent;
                evalsha += p.evalsha;
            }
            return Readings.perRequest(evalsha, sent);
        }
    }

    static Curve find(List<Curve> curves, String key) {
        return curves.stream().filter(c -> c.key.equals(key)).findFirst().orElse(null);
    }

    /** The curves of an {@code overhead.json} ({@link Report#json()}), in the order of its arms. */
    static List<Curve> fromJson(JsonNode root) {
        List<Curve> curves = new ArrayList<>();
        for (var arm : root.path("arms").properties()) {
            List<Point> points = new ArrayList<>();
            for (JsonNode r : arm.getValue().path("rates")) {
                long sent = r.path("sent").asLong();
                // Runs from before the raw count was written have only the ratio.
                long evalsha = r.has("redis_evalsha")
                        ? r.path("redis_evalsha").asLong()
                        : Math.round(r.path("redis_evalsha_per_request").asDouble() * sent);
                points.add(new Point(
                        r.path("rate").asDouble(),
                        r.path("p50_ms").asDouble(),
                        r.path("p99_ms").asDouble(),
                        r.path("passes").asBoolean(),
                        sent,
                        evalsha));
            }
            curves.add(new Curve(arm.getKey(), arm.getValue().path("label").asString(), points));
        }
        return curves;
    }
}
