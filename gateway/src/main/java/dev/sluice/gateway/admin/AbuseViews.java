package dev.sluice.gateway.admin;

import dev.sluice.gateway.abuse.Ceiling;
import dev.sluice.gateway.abuse.Flag;
import dev.sluice.gateway.abuse.FlagReview;
import dev.sluice.gateway.abuse.UsageSample;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A tenant's usage minutes and the abuse flags raised on them, as {@link AdminViews} writes the
 * other answers: records Jackson writes in their components' order.
 */
final class AbuseViews {
    private AbuseViews() {}

    /** One minute of a tenant's usage series (a flag's evidence is made of them). */
    record Point(
            String minute,
            String tier,
            long tokens,
            long requests,
            double utilisation,
            String window,
            Map<String, Long> stages,
            double pressure,
            CeilingView ceiling) {}

    record CeilingView(
            String window,
            String reason,
            double fill,
            double peak,
            Long roomTokens,
            long typicalTokens,
            long refused,
            long held) {}

    record FlagView(
            String id,
            String tenant,
            String tier,
            String status,
            String openedAt,
            String closedAt,
            String runStart,
            int runMinutes,
            List<Point> evidence,
            List<ReviewView> reviews) {}

    record ReviewView(String by, String at, String action, String note, String tier) {}

    record FlagList(List<FlagView> flags) {}

    static Point point(UsageSample s) {
        // pressure and ceiling came with the ceiling signal; the fields before them keep their meaning
        // (utilisation: the snapshot as the minute ended).
        return new Point(
                Instant.ofEpochMilli(s.minuteStartMs()).toString(),
                s.tier(),
                s.tokens(),
                s.requests(),
                AdminViews.rounded(s.utilisation()),
                s.window(),
                s.stages(),
                AdminViews.rounded(s.pressure()),
                ceiling(s.ceiling()));
    }

    /** What the minute's ceiling signal measured, or null for a point stored before it existed. */
    static CeilingView ceiling(Ceiling c) {
        if (c == null) return null;
        return new CeilingView(
                c.window(),
                c.reason(),
                c.fill(),
                c.peak(),
                c.roomTokens() < 0 ? null : c.roomTokens(),
                c.typicalTokens(),
                c.refused(),
                c.held());
    }

    static FlagView flag(Flag f) {
        return new FlagView(
                f.id(),
                f.tenantId(),
                f.tier(),
                f.status().wire(),
                f.openedAt().toString(),
                f.closedAt() == null ? null : f.closedAt().toString(),
                f.runStart().toString(),
                f.runMinutes(),
                f.evidence().stream().map(AbuseViews::point).toList(),
                f.reviews().stream().map(AbuseViews::review).toList());
    }

    private static ReviewView review(FlagReview r) {
        return new ReviewView(r.by(), r.at().toString(), r.action().wire(), r.note(), r.tier());
    }
}
