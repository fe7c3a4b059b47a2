package dev.sluice.gateway.drafts;

import dev.sluice.gateway.abuse.UsageSample;
import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.shadow.ShadowMinute;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Estimates, from the per-minute usage history, what a draft would have done: which of each
 * tenant-minute's requests its tier's windows would have refused. Pure: the history and both
 * configurations in, per tenant-minute decisions out (shaped as the shadow records them, so the
 * what-if sums either alike).
 *
 * <p>How, per tenant-minute: the requests offered are the minute's decided ones (passed,
 * downgraded, delayed, rejected); each is taken to weigh the minute's tokens per admitted
 * request, spread evenly across the minute. A window admits requests until the next one would
 * pass its token or request cap; a window longer than the minute (hour, day) has for room its
 * cap less the tokens and requests the history shows admitted in its earlier minutes. The
 * minute's estimated refusals are those beyond the tightest window's point.
 *
 * <p>The estimate is made for the live configuration and for the draft alike, and the draft's
 * prediction is the live minute's real counts moved by the difference: the model's own error
 * (the minute is a sample, not a log of requests; the real windows slide across minute
 * boundaries) is the same on both sides and cancels, so a draft equal to live predicts exactly
 * what happened, and a draft no looser anywhere never predicts fewer refusals. Longer windows are
 * read from the admitted history as it was: a stricter draft's earlier refusals would have left
 * it room later, which this does not credit (the estimate leans towards more refusals). Not
 * replayed: spend budgets (the history keeps tokens, not their price per model), per-model
 * windows (it keeps no model), the ladder's delays and downgrades (carried over from live), and
 * clients' retries of refused calls.
 */
public final class Replay {
    private Replay() {}

    /**
     * Every tenant-minute of {@code history} starting at or after {@code fromMs}, live as
     * recorded and as estimated under {@code draft}; earlier points only fill longer windows.
     * {@code draftVersion} labels the result.
     */
    public static List<ShadowMinute> estimate(
            Map<String, List<UsageSample>> history,
            SluiceConfig live,
            SluiceConfig draft,
            long draftVersion,
            long fromMs) {
        List<ShadowMinute> out = new ArrayList<>();
        history.forEach((tenant, samples) -> {
            Map<Long, UsageSample> byMinute = new HashMap<>();
            for (UsageSample s : samples) byMinute.put(s.minuteStartMs(), s);
            for (UsageSample s : samples) {
                if (s.minuteStartMs() < fromMs) continue;
                Tier was = live.tiers().get(s.tier());
                Tier would = draft.tiers().get(s.tier());
                Map<String, Long> counts = counts(s);
                Map<String, Long> predicted = counts;
                if (was != null && would != null) {
                    long delta = refused(s, would, byMinute) - refused(s, was, byMinute);
                    predicted = moved(counts, delta);
                }
                out.add(new ShadowMinute(s.minuteStartMs(), tenant, s.tier(), draftVersion, counts, predicted));
            }
        });
        return out;
    }

    /** The requests {@code tier}'s windows would have refused in {@code s}'s minute, by the model above. */
    static long refused(UsageSample s, Tier tier, Map<Long, UsageSample> byMinute) {
        long offered = offered(s);
        if (offered == 0) return 0;
        // Tokens per request, from what the minute admitted; a minute that admitted none offers its
        // rejected requests at no known weight, and only request caps bind on them.
        double perRequest = s.requests() > 0 ? (double) s.tokens() / s.requests() : 0;
        long admitted = offered;
        for (WindowLimit w : tier.windows()) {
            long minutes = Math.max(1, w.seconds() / 60);
            long usedTokens = 0;
            long usedRequests = 0;
            for (long k = 1; k < minutes; k++) {
                UsageSample earlier = byMinute.get(s.minuteStartMs() - k * 60_000L);
                if (earlier == null) continue;
                usedTokens += earlier.tokens();
                usedRequests += earlier.requests();
            }
            long roomRequests = Math.max(0, w.requests() - usedRequests);
            long roomTokens = Math.max(0, w.tokens() - usedTokens);
            long byTokens = perRequest > 0 ? (long) Math.floor(roomTokens / perRequest) : Long.MAX_VALUE;
            admitted = Math.min(admitted, Math.min(roomRequests, byTokens));
        }
        return offered - admitted;
    }

    static long offered(UsageSample s) {
        Map<String, Long> st = s.stages();
        return st.get(Stage.PASSED.label())
                + st.get(Stage.DOWNGRADED.label())
                + st.get(Stage.DELAYED.label())
                + st.get(Stage.REJECTED.label());
    }

    private static Map<String, Long> counts(UsageSample s) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String stage : WhatIf.STAGES) m.put(stage, s.stages().getOrDefault(stage, 0L));
        return m;
    }

    /**
     * The counts with {@code delta} more refusals (fewer when negative), within what was offered:
     * added refusals come out of passed first, then delayed, then downgraded; refusals taken
     * away pass.
     */
    static Map<String, Long> moved(Map<String, Long> counts, long delta) {
        Map<String, Long> m = new LinkedHashMap<>(counts);
        String rejected = Stage.REJECTED.label();
        if (delta < 0) {
            long back = Math.min(-delta, m.get(rejected));
            m.put(rejected, m.get(rejected) - back);
            m.merge(Stage.PASSED.label(), back, Long::sum);
            return m;
        }
        long left = delta;
        for (String from : List.of(Stage.PASSED.label(), Stage.DELAYED.label(), Stage.DOWNGRADED.label())) {
            long take = Math.min(left, m.get(from));
            m.put(from, m.get(from) - take);
            m.put(rejected, m.get(rejected) + take);
            left -= take;
        }
        return m;
    }

    /** How exact the estimate is, in a sentence the console shows beside it. */
    public static final String EXACTNESS =
            "Estimated from per-minute usage samples, not from each request: each minute's"
                    + " requests are taken to weigh its average tokens and to arrive evenly, so the refusals a draft adds or"
                    + " removes are counted per minute and may be off by the requests near a window's edge. Spend budgets,"
                    + " per-model windows, the ladder's delays and downgrades, and clients' retries are not replayed.";
}
