package dev.sluice.gateway.degrade;

import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.config.LadderSettings;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.quota.QuotaDecision;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Staged degradation as a pure decision: most of what users feel as "blocked" is a
 * brief spike that a short delay or a cheaper model smooths over, so a 429 is the last rung.
 * <ol>
 *   <li>Admitted, and the tightest window or spend budget is above {@code downgrade-above} after this request:
 *       send the tier's cheaper model (unless the caller marked the request critical and the tier
 *       honours that).</li>
 *   <li>Not admitted, but it fits within {@code max-delay-ms}: hold it for a jittered
 *       {@code delay-min-ms}–{@code delay-max-ms}, and never less than it needs, then try again.
 *       Jitter spreads the retries of a burst so they do not all land on the same millisecond.</li>
 *   <li>Otherwise: 429 with the exact Retry-After.</li>
 * </ol>
 * The randomness is passed in, so tests fix the seed; the request path's draws each from its
 * thread's own generator.
 */
public final class DegradationLadder {
    /**
     * The calling thread's {@link ThreadLocalRandom}, looked up on every draw (it is the thread's own
     * and must not be kept): many request threads decide at once, and a {@code SplittableRandom} must
     * not be drawn from by two threads.
     */
    static final RandomGenerator PER_THREAD = new RandomGenerator() {
        @Override
        public long nextLong() {
            return ThreadLocalRandom.current().nextLong();
        }

        @Override
        public long nextLong(long origin, long bound) {
            return ThreadLocalRandom.current().nextLong(origin, bound);
        }
    };

    private final RandomGenerator random;

    /** For the request path: the jitter drawn on each deciding thread's own generator. */
    public DegradationLadder() {
        this(PER_THREAD);
    }

    /** @param random drawn from by one thread at a time (a test's seeded source) */
    public DegradationLadder(RandomGenerator random) {
        this.random = random;
    }

    /**
     * @param mayDelay false on the second try after a delay (a request is held once), or when the
     *                 replica already holds as many requests as it may
     */
    public LadderDecision decide(
            QuotaDecision quota, Tier tier, LadderSettings ladder, String model, boolean critical, boolean mayDelay) {
        if (quota.admitted()) {
            // The tightest of the token windows and the spend budgets: money is a rung like tokens.
            boolean above = quota.utilisation() > ladder.downgradeAbove();
            String cheaper = model == null ? null : tier.downgradeOf(model);
            boolean keep = critical && tier.allowNoDowngrade();
            if (above && cheaper != null && !cheaper.equals(model) && !keep) {
                return new LadderDecision(Stage.DOWNGRADED, cheaper, 0);
            }
            return LadderDecision.pass(model);
        }
        long needed = quota.retryAfterMs();
        if (mayDelay && needed >= 0 && needed <= ladder.maxDelayMs()) {
            long jitter = ladder.delayMaxMs() > ladder.delayMinMs()
                    ? random.nextLong(ladder.delayMinMs(), ladder.delayMaxMs() + 1)
                    : ladder.delayMinMs();
            return new LadderDecision(Stage.DELAYED, model, Math.max(needed, jitter));
        }
        return LadderDecision.reject(model);
    }
}
