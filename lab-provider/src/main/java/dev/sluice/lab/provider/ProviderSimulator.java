package dev.sluice.lab.provider;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.ToLongFunction;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * The pure core of the lab provider: admission against rolling request and token windows and an
 * in-flight cap, release, billing and counters. No I/O and no clock of its own: every method that
 * depends on time takes {@code nowMillis}, so tests drive it with a fake clock.
 *
 * <p>One lock guards everything. The critical sections are short (a deque walk bounded by the
 * requests-per-minute limit) and never block, so calling it from Netty event loops is fine.
 */
public final class ProviderSimulator {

    /** Pass as {@code maxTokens} when the request gives no max tokens: the model writes what it wants. */
    public static final long NO_MAX_TOKENS = -1;

    /**
     * One admission in the rolling windows. {@code output} is settled from the reservation to what the
     * call wrote, hence mutable (under the simulator's lock); {@code gone} once it left the windows.
     */
    static final class Entry {
        final long atMillis;
        final long tokens;
        final long input;
        long output;
        boolean gone;

        Entry(long atMillis, long tokens, long input, long output) {
            this.atMillis = atMillis;
            this.tokens = tokens;
            this.input = input;
            this.output = output;
        }
    }

    /**
     * Told every admission decision, under the simulator's lock: keep it short and never call back.
     * The lab scenarios use it to time what the provider admitted and refused, to the millisecond.
     */
    @FunctionalInterface
    public interface Listener {
        /** @param reservedTokens what the call counts against the token window (prompt + max output) */
        void decided(long nowMillis, Admission admission, long reservedTokens);

        /** An admitted call left the in-flight set (completed or cancelled), once per call. */
        default void released(long nowMillis, LabCall call) {}
    }

    private static final Listener NO_LISTENER = (now, admission, tokens) -> {};
    private volatile Listener listener = NO_LISTENER;

    private final RandomGenerator random;
    private LabLimits limits;

    /** Admissions still inside the rolling window, oldest first. Bounded: at most requestsPerMinute long. */
    private final ArrayDeque<Entry> window = new ArrayDeque<>();

    private long tokensInWindow;
    private long inputInWindow;
    private long outputInWindow;
    private final Set<LabCall> inFlight = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Time never runs backwards inside the simulator, even if the wall clock does. */
    private long lastNow = Long.MIN_VALUE;
    /** Calls admitted before a reset still run, but their billing belongs to the old epoch. */
    private long epoch;

    private long nextId = 1;

    private long received;
    private long admitted;
    private long completed;
    private long cancelled;
    private long rejected429Requests;
    private long rejected429Tokens;
    private long rejected503;
    private long badRequests;
    private long callsWithoutKey;
    private long tokensBilled;
    private double costUsd;
    private int maxInFlightSeen;
    private long maxTokensInWindow;
    private long maxRequestsInWindow;

    public ProviderSimulator(LabLimits limits) {
        this(limits, new SplittableRandom());
    }

    /** @param random drives the latency jitter; pass a seeded one (or jitter 0) for repeatable tests */
    public ProviderSimulator(LabLimits limits, RandomGenerator random) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.random = Objects.requireNonNull(random, "random");
    }

    /**
     * Decides a call. In-flight cap first (503), then the rolling windows (429). A refused call leaves
     * no trace in the windows, exactly like a real provider.
     *
     * @param promptTokens tokens of the prompt, as the provider's tokenizer counts them
     * @param maxTokens    the request's max output tokens, {@link #NO_MAX_TOKENS} if absent, 0 for calls
     *                     that produce no tokens (embeddings)
     */
    public synchronized Admission admit(long promptTokens, long maxTokens, long nowMillis) {
        Admission decision = decide(promptTokens, maxTokens, nowMillis);
        listener.decided(lastNow, decision, reserved(promptTokens, maxTokens));
        return decision;
    }

    /** What a call counts against the token window: prompt + max output, saturated. */
    private long reserved(long promptTokens, long maxTokens) {
        return saturatedAdd(promptTokens, output(maxTokens));
    }

    /** The output a call reserves: its max tokens, or what the model wants to write if it gave none. */
    private long output(long maxTokens) {
        return maxTokens == NO_MAX_TOKENS ? limits.completionTokens() : maxTokens;
    }

    /** Replaces the listener ({@code null}: none). */
    public void listener(Listener l) {
        this.listener = l == null ? NO_LISTENER : l;
    }

    private Admission decide(long promptTokens, long maxTokens, long nowMillis) {
        if (promptTokens < 0) {
            throw new IllegalArgumentException("promptTokens must be >= 0, was " + promptTokens);
        }
        if (maxTokens < 0 && maxTokens != NO_MAX_TOKENS) {
            throw new IllegalArgumentException("maxTokens must be >= 0 or NO_MAX_TOKENS, was " + maxTokens);
        }
        long now = advance(nowMillis);
        received++;

        if (inFlight.size() >= limits.maxInFlight()) {
            rejected503++;
            return new Admission.Rejected(
                    Admission.Reason.OVERLOADED,
                    overloadRetryMillis(now),
                    limits.maxInFlight(),
                    inFlight.size(),
                    1,
                    snapshot(now));
        }

        long wanted = limits.completionTokens();
        long output = output(maxTokens);
        long reserved = reserved(promptTokens, maxTokens);
        Admission.Rejected tooLarge = tooLarge(promptTokens, output, reserved, now);
        if (tooLarge != null) {
            rejected429Tokens++;
            return tooLarge;
        }
        long requestsFitAt = requestsFitAt(now);
        long tokensFitAt = limits.tokensPerMinute() == 0
                ? now
                : fitAt(reserved, tokensInWindow, limits.tokensPerMinute(), e -> e.tokens);
        long inputFitAt = limits.inputTokensPerMinute() == 0
                ? now
                : fitAt(promptTokens, inputInWindow, limits.inputTokensPerMinute(), e -> e.input);
        long outputFitAt = limits.outputTokensPerMinute() == 0
                ? now
                : fitAt(output, outputInWindow, limits.outputTokensPerMinute(), e -> e.output);
        long fitsAt = Math.max(Math.max(requestsFitAt, tokensFitAt), Math.max(inputFitAt, outputFitAt));
        if (fitsAt > now) {
            // Name the limit that binds longest; the retry time satisfies them all.
            if (requestsFitAt == fitsAt) {
                rejected429Requests++;
                return new Admission.Rejected(
                        Admission.Reason.REQUESTS_PER_MINUTE,
                        fitsAt - now,
                        limits.requestsPerMinute(),
                        window.size(),
                        1,
                        snapshot(now));
            }
            rejected429Tokens++;
            if (tokensFitAt == fitsAt) {
                return new Admission.Rejected(
                        Admission.Reason.TOKENS_PER_MINUTE,
                        fitsAt - now,
                        limits.tokensPerMinute(),
                        tokensInWindow,
                        reserved,
                        snapshot(now));
            }
            if (inputFitAt == fitsAt) {
                return new Admission.Rejected(
                        Admission.Reason.INPUT_TOKENS_PER_MINUTE,
                        fitsAt - now,
                        limits.inputTokensPerMinute(),
                        inputInWindow,
                        promptTokens,
                        snapshot(now));
            }
            return new Admission.Rejected(
                    Admission.Reason.OUTPUT_TOKENS_PER_MINUTE,
                    fitsAt - now,
                    limits.outputTokensPerMinute(),
                    outputInWindow,
                    output,
                    snapshot(now));
        }

        Entry entry = new Entry(now, reserved, promptTokens, output);
        window.addLast(entry);
        tokensInWindow += reserved;
        inputInWindow += promptTokens;
        outputInWindow += output;
        maxTokensInWindow = Math.max(maxTokensInWindow, tokensInWindow);
        maxRequestsInWindow = Math.max(maxRequestsInWindow, window.size());
        admitted++;

        long completion = maxTokens == NO_MAX_TOKENS ? wanted : Math.min(wanted, maxTokens);
        boolean truncated = maxTokens != NO_MAX_TOKENS && maxTokens > 0 && maxTokens < wanted;
        LabCall call =
                new LabCall(nextId++, promptTokens, reserved, completion, truncated, jitteredLatency(), now, epoch);
        call.entry = entry;
        inFlight.add(call);
        maxInFlightSeen = Math.max(maxInFlightSeen, inFlight.size());
        return new Admission.Admitted(call, snapshot(now));
    }

    /** The call finished normally: release it and bill prompt + completion. False if already released. */
    public synchronized boolean complete(LabCall call, long nowMillis) {
        advance(nowMillis);
        if (!release(call)) {
            return false;
        }
        settleOutput(call, call.completionTokens());
        if (call.epoch == epoch) {
            completed++;
            bill(call.promptTokens() + call.completionTokens());
        }
        return true;
    }

    /**
     * The client went away: release the call and bill the prompt (the model read it) plus the
     * completion tokens already sent. False if already released.
     */
    public synchronized boolean cancel(LabCall call, long tokensSent, long nowMillis) {
        advance(nowMillis);
        if (!release(call)) {
            return false;
        }
        long sent = Math.max(0, Math.min(tokensSent, call.completionTokens()));
        settleOutput(call, sent);
        if (call.epoch == epoch) {
            cancelled++;
            bill(call.promptTokens() + sent);
        }
        return true;
    }

    /** A call the provider could not parse (400): counted as received, never admitted. */
    public synchronized void noteBadRequest() {
        received++;
        badRequests++;
    }

    /** A call without an Authorization header. The simulator accepts it, but the lab wants to know. */
    public synchronized void noteMissingKey() {
        callsWithoutKey++;
    }

    public synchronized RateLimitSnapshot rateLimits(long nowMillis) {
        return snapshot(advance(nowMillis));
    }

    public synchronized LabStats stats(long nowMillis) {
        advance(nowMillis);
        return new LabStats(
                received,
                admitted,
                completed,
                cancelled,
                rejected429Requests + rejected429Tokens,
                rejected429Requests,
                rejected429Tokens,
                rejected503,
                badRequests,
                callsWithoutKey,
                tokensBilled,
                costUsd,
                inFlight.size(),
                maxInFlightSeen,
                maxTokensInWindow,
                maxRequestsInWindow,
                window.size(),
                tokensInWindow,
                limits);
    }

    public synchronized LabLimits limits() {
        return limits;
    }

    /** New limits apply from the next admission; what is already in the windows stays there. */
    public synchronized void setLimits(LabLimits newLimits) {
        this.limits = Objects.requireNonNull(newLimits, "limits");
    }

    /** Read-modify-write of the limits in one step, so two concurrent partial updates both land. */
    public synchronized LabLimits updateLimits(UnaryOperator<LabLimits> change) {
        setLimits(change.apply(limits));
        return limits;
    }

    /**
     * Clears the counters and the windows. Calls still running keep their in-flight slot (they really
     * occupy the provider) but their billing is not counted in the new epoch.
     */
    public synchronized void reset() {
        epoch++;
        window.forEach(e -> e.gone = true);
        window.clear();
        tokensInWindow = 0;
        inputInWindow = 0;
        outputInWindow = 0;
        received = admitted = completed = cancelled = 0;
        rejected429Requests = rejected429Tokens = rejected503 = badRequests = callsWithoutKey = 0;
        tokensBilled = 0;
        costUsd = 0;
        maxInFlightSeen = inFlight.size();
        maxTokensInWindow = 0;
        maxRequestsInWindow = 0;
    }

    /** Entries held for the rolling window; exposed so tests can check memory stays bounded. */
    synchronized int windowEntries() {
        return window.size();
    }

    private long advance(long nowMillis) {
        lastNow = Math.max(lastNow, nowMillis);
        long horizon = lastNow - limits.windowMillis();
        // An admission at t counts while now < t + window.
        while (!window.isEmpty() && window.peekFirst().atMillis <= horizon) {
            Entry gone = window.pollFirst();
            gone.gone = true;
            tokensInWindow -= gone.tokens;
            inputInWindow -= gone.input;
            outputInWindow -= gone.output;
        }
        return lastNow;
    }

    private boolean release(LabCall call) {
        if (call.released) {
            return false;
        }
        call.released = true;
        inFlight.remove(call);
        listener.released(lastNow, call);
        return true;
    }

    private void bill(long tokens) {
        tokensBilled += tokens;
        costUsd += tokens * limits.pricePerMillionTokens() / 1_000_000.0;
    }

    /** Earliest instant at which one more request fits the request window. */
    private long requestsFitAt(long now) {
        long mustLeave = window.size() + 1L - limits.requestsPerMinute();
        if (mustLeave <= 0) {
            return now;
        }
        Iterator<Entry> it = window.iterator();
        Entry e = null;
        for (long i = 0; i < mustLeave && it.hasNext(); i++) {
            e = it.next();
        }
        // Limits lowered below the window's content: the whole window has to drain.
        return e.atMillis + limits.windowMillis();
    }

    /** Earliest instant at which {@code tokens} more fit a token window holding {@code inWindow} of {@code limit}. */
    private long fitAt(long tokens, long inWindow, long limit, ToLongFunction<Entry> part) {
        long excess = saturatedAdd(inWindow, tokens) - limit;
        if (excess <= 0) {
            return lastNow;
        }
        long freed = 0;
        for (Entry e : window) {
            freed += part.applyAsLong(e);
            if (freed >= excess) {
                return e.atMillis + limits.windowMillis();
            }
        }
        // Only when limits were lowered below what the window holds: the whole window has to drain.
        return window.isEmpty() ? lastNow : window.peekLast().atMillis + limits.windowMillis();
    }

    /** A call that alone exceeds a token limit can never run: refused without a retry time. */
    private Admission.Rejected tooLarge(long prompt, long output, long reserved, long now) {
        Admission.Rejected refused = tooLargeFor(reserved, limits.tokensPerMinute(), tokensInWindow, now);
        if (refused == null) {
            refused = tooLargeFor(prompt, limits.inputTokensPerMinute(), inputInWindow, now);
        }
        if (refused == null) {
            refused = tooLargeFor(output, limits.outputTokensPerMinute(), outputInWindow, now);
        }
        return refused;
    }

    /** Refused where {@code tokens} alone exceed {@code limit} (0: no such limit), else null. */
    private Admission.Rejected tooLargeFor(long tokens, long limit, long inWindow, long now) {
        return limit > 0 && tokens > limit
                ? new Admission.Rejected(Admission.Reason.REQUEST_TOO_LARGE, -1, limit, inWindow, tokens, snapshot(now))
                : null;
    }

    /** The output window keeps what the call wrote, not what it reserved (as Anthropic settles OTPM). */
    private void settleOutput(LabCall call, long written) {
        Entry e = call.entry;
        if (e == null || e.gone || written >= e.output) {
            return;
        }
        outputInWindow -= e.output - written;
        e.output = written;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** A 503 is over when the first running call is expected to finish. */
    private long overloadRetryMillis(long now) {
        long earliest = Long.MAX_VALUE;
        for (LabCall c : inFlight) {
            earliest = Math.min(earliest, c.admittedAtMillis() + c.latencyMillis());
        }
        // Overdue calls (a slow reader) give no better estimate than "soon".
        return Math.max(1, earliest - now);
    }

    private long jitteredLatency() {
        long base = limits.latency().toMillis();
        double jitter = limits.latencyJitter();
        if (jitter == 0 || base == 0) {
            return base;
        }
        return Math.max(0, Math.round(base * (1 + jitter * (2 * random.nextDouble() - 1))));
    }

    private RateLimitSnapshot snapshot(long now) {
        long resetMillis = window.isEmpty() ? 0 : window.peekLast().atMillis + limits.windowMillis() - now;
        return new RateLimitSnapshot(
                limits.requestsPerMinute(),
                Math.max(0, limits.requestsPerMinute() - window.size()),
                resetMillis,
                limits.tokensPerMinute(),
                Math.max(0, limits.tokensPerMinute() - tokensInWindow),
                resetMillis,
                limits.inputTokensPerMinute(),
                Math.max(0, limits.inputTokensPerMinute() - inputInWindow),
                limits.outputTokensPerMinute(),
                Math.max(0, limits.outputTokensPerMinute() - outputInWindow));
    }
}
