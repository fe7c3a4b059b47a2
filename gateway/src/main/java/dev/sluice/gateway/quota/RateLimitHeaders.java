package dev.sluice.gateway.quota;

import dev.sluice.gateway.api.OpenAiDuration;
import dev.sluice.gateway.config.Money;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;

/**
 * Tells the caller where it stands, in the two vocabularies clients read:
 * <ul>
 *   <li>OpenAI's {@code x-ratelimit-{limit,remaining,reset}-{requests,tokens}} for the minute
 *       window (what OpenAI's own headers describe, and what its SDKs and tools parse), the reset
 *       written as OpenAI writes durations ({@code 12ms}, {@code 1s}, {@code 6m0s});</li>
 *   <li>the IETF {@code RateLimit-Policy} / {@code RateLimit} fields
 *       (draft-ietf-httpapi-ratelimit-headers-09 and later): one named policy per window and
 *       unit, e.g. {@code "minute-tokens";q=150000;w=60;qu="tokens"}. "tokens" is not one of
 *       the draft's registered units (requests, content-bytes, concurrent-requests); the draft
 *       allows new ones and no registered unit says "model tokens". A tier's per-model window of the
 *       request's model is a policy like the others ({@code "model:gpt-4o-tokens"}).</li>
 * </ul>
 * A key's own window is named {@code key-minute}, an organisation's {@code organisation-<window>}.
 * A tier's spend budgets are told apart, in USD ({@code X-Sluice-Budget-Remaining-USD-Day}: the least left at
 * any level, tenant, key or organisation), since neither vocabulary has a unit for money.
 */
public final class RateLimitHeaders {
    private RateLimitHeaders() {}

    /** The windows' headers, and each spend budget's remaining USD for its period ({@link #SPEND_REMAINING}). */
    public static void apply(HttpHeaders headers, QuotaDecision decision) {
        apply(headers, decision.windows());
        // Several levels (tenant, key, organisation) may budget one period: the caller can spend the least of them.
        Map<String, Long> least = new LinkedHashMap<>();
        for (SpendUsage s : decision.spends()) least.merge(s.period(), s.remainingMicros(), Math::min);
        least.forEach((period, micros) -> headers.set(SPEND_REMAINING + capitalised(period), Money.plain(micros)));
    }

    /**
     * The prefix of a spend budget's header: {@code X-Sluice-Budget-Remaining-USD-Day} and
     * {@code -Month}, the USD left of the period's budget after this request's reservation (exact
     * to the micro-dollar, e.g. {@code 0.006667}).
     */
    public static final String SPEND_REMAINING = "X-Sluice-Budget-Remaining-USD-";

    private static String capitalised(String period) {
        return Character.toUpperCase(period.charAt(0)) + period.substring(1);
    }

    public static void apply(HttpHeaders headers, List<WindowUsage> windows) {
        WindowUsage minute = windows.get(0);
        String reset = OpenAiDuration.format(minute.resetMs());
        headers.set("x-ratelimit-limit-requests", Long.toString(minute.limitRequests()));
        headers.set("x-ratelimit-remaining-requests", Long.toString(minute.remainingRequests()));
        headers.set("x-ratelimit-reset-requests", reset);
        headers.set("x-ratelimit-limit-tokens", Long.toString(minute.limitTokens()));
        headers.set("x-ratelimit-remaining-tokens", Long.toString(minute.remainingTokens()));
        headers.set("x-ratelimit-reset-tokens", reset);

        StringBuilder policy = new StringBuilder();
        StringBuilder state = new StringBuilder();
        for (WindowUsage w : windows) {
            append(
                    policy,
                    state,
                    QuotaScope.publicName(w.name()) + "-tokens",
                    w.limitTokens(),
                    w.seconds(),
                    "tokens",
                    w.remainingTokens(),
                    w.resetMs());
            // A window that caps only tokens (a model's, a key's) has no request policy to tell.
            if (w.limitRequests() == Long.MAX_VALUE) continue;
            append(
                    policy,
                    state,
                    QuotaScope.publicName(w.name()) + "-requests",
                    w.limitRequests(),
                    w.seconds(),
                    "requests",
                    w.remainingRequests(),
                    w.resetMs());
        }
        headers.set("RateLimit-Policy", policy.toString());
        headers.set("RateLimit", state.toString());
    }

    private static void append(
            StringBuilder policy,
            StringBuilder state,
            String name,
            long quota,
            long window,
            String unit,
            long remaining,
            long resetMs) {
        if (!policy.isEmpty()) {
            policy.append(", ");
            state.append(", ");
        }
        policy.append('"')
                .append(name)
                .append("\";q=")
                .append(quota)
                .append(";w=")
                .append(window)
                .append(";qu=\"")
                .append(unit)
                .append('"');
        state.append('"')
                .append(name)
                .append("\";r=")
                .append(remaining)
                .append(";t=")
                .append(ceilSeconds(resetMs));
    }

    public static long ceilSeconds(long ms) {
        return ms <= 0 ? 0 : (ms + 999) / 1000;
    }
}
