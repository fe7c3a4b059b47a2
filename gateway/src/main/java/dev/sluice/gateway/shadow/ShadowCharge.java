package dev.sluice.gateway.shadow;

import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.quota.QuotaReservation;
import dev.sluice.gateway.usage.SettleListener;
import reactor.core.publisher.Mono;

/**
 * One request's shadow: the draft's verdict, the live outcome and the live settlement arrive in any
 * order, on any thread. The outcomes are reported once both are known; the draft's charge follows
 * the live one: settled at the live usage, refunded when the live request never reached a provider,
 * and kept at its estimate when the live path refused it (under the draft it would have been served).
 */
final class ShadowCharge implements SettleListener {
    private final ShadowFilter.Outcomes outcomes;
    private ShadowEvaluator.Verdict verdict;
    private Stage live;
    private boolean liveKnown;
    private boolean reported;
    /** The live settlement: null until told; {@link #REFUNDED} for a refund. */
    private long[] settlement;

    private static final long[] REFUNDED = new long[0];

    ShadowCharge(ShadowFilter.Outcomes outcomes) {
        this.outcomes = outcomes;
    }

    void drafted(ShadowEvaluator.Verdict v) {
        synchronized (this) {
            if (verdict != null) return;
            verdict = v;
        }
        settleIfBoth();
        reportIfBoth();
    }

    void lived(Stage stage) {
        synchronized (this) {
            if (liveKnown) return;
            liveKnown = true;
            live = stage;
        }
        reportIfBoth();
    }

    @Override
    public void settled(long tokens, long costMicros) {
        synchronized (this) {
            if (settlement != null) return;
            settlement = new long[] {tokens, costMicros};
        }
        settleIfBoth();
    }

    @Override
    public void refunded() {
        synchronized (this) {
            if (settlement != null) return;
            settlement = REFUNDED;
        }
        settleIfBoth();
    }

    private void settleIfBoth() {
        QuotaReservation r;
        long[] s;
        synchronized (this) {
            r = verdict == null ? null : verdict.reservation();
            s = settlement;
        }
        if (r == null || s == null) return;
        // settle and refundAll are once-only on the reservation: a second call here is a no-op.
        (s == REFUNDED ? r.refundAll() : r.settle(s[0], s[1]))
                .onErrorResume(e -> Mono.empty())
                .subscribe();
    }

    private void reportIfBoth() {
        Stage l;
        Stage d;
        synchronized (this) {
            if (reported || !liveKnown || verdict == null) return;
            reported = true;
            l = live;
            d = verdict.stage();
        }
        if (l != null && d != null) outcomes.both(l, d);
    }
}
