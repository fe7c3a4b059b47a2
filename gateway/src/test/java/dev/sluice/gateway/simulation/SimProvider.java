package dev.sluice.gateway.simulation;

import dev.sluice.gateway.usage.Usage;
import java.net.ConnectException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A provider, simulated: the network replaced, nothing else. It enforces its published limits as
 * it counts: an exact sliding log of the last 60 s on its own clock (requests, and tokens: the
 * prompt as it counts it, {@code countFactor} times the gateway's count with some spread, plus
 * the whole max_tokens, kept for the minute as OpenAI keeps them) and the calls it holds at once.
 * A call over any of them is answered 429 as a real provider answers it, and recorded as a
 * violation: the gateway promised never to send it. Besides, it answers 429 and 503 with a
 * retry-after at random (its own load, not a limit), 5xx or no connection at all during its
 * outages, and otherwise after its latency with the usage it counted and, where drawn, its
 * x-ratelimit-remaining-* and openai-processing-ms headers.
 *
 * <p>Messages to it keep their order (one link from the gateway): a request sent after another
 * request's connection was closed arrives after that close. A network that reorders them would
 * show here as calls in flight over the limit that no gateway could prevent.
 */
final class SimProvider {
    static final long WINDOW_MS = 60_000;

    /** What the gateway gets back: status, the usage of a 200, and the headers the dispatch stage reads (-1: absent). */
    record Answer(
            int status,
            Usage usage,
            long retryAfterMs,
            long remainingRequests,
            long remainingTokens,
            long resetMs,
            long processingMs) {}

    /** A call the provider should never have been sent. */
    record Violation(
            String provider, long atMs, String limit, long used, long wanted, long limitValue, String attempt) {
        @Override
        public String toString() {
            return String.format(
                    "%s at %.3f s: %s limit %d, %d used in its window, %s needed %d more",
                    provider, atMs / 1000.0, limit, limitValue, used, attempt, wanted);
        }
    }

    private final World.Provider spec;
    private final VirtualTimeScheduler time;
    private final SimClock clock; // its own: the store's time shifted by its offset
    private final SplittableRandom random;
    private final Trace trace;
    private final List<Violation> violations;
    private final ArrayDeque<long[]> log = new ArrayDeque<>(); // {counted at (its clock), tokens}
    private long logTokens;
    private int inFlight;
    private long lastArrivalMs = Long.MIN_VALUE; // the link's order, in virtual time
    // What it saw, for the summary.
    long calls;
    long served;
    long limit429;
    long injected429;
    long injected503;
    long errors;
    long refused;
    double peakRequests;
    double peakTokens;
    double peakInFlight;

    SimProvider(
            World.Provider spec,
            VirtualTimeScheduler time,
            SplittableRandom random,
            Trace trace,
            List<Violation> violations) {
        this.spec = spec;
        this.time = time;
        this.clock = new SimClock(time, spec.clockOffsetMs());
        this.random = random;
        this.trace = trace;
        this.violations = violations;
    }

    String name() {
        return spec.name();
    }

    World.Provider spec() {
        return spec;
    }

    int inFlight() {
        return inFlight;
    }

    private long now() {
        return time.now(TimeUnit.MILLISECONDS);
    }

    /** One call as the gateway makes it: the answer, or a {@link ConnectException}; cancelling closes the connection. */
    Mono<Answer> call(Attempt attempt, long maxTokens) {
        return Mono.create(sink -> {
            long sentAt = now();
            calls++;
            if (outage(sentAt, World.OutageKind.REFUSED)) {
                refused++;
                trace.event(sentAt, "refused", attempt.id);
                var refusal = time.schedule(
                        () -> sink.error(new ConnectException("Connection refused: " + spec.name())),
                        2 * spec.oneWayMs(),
                        TimeUnit.MILLISECONDS);
                sink.onCancel(refusal);
                return;
            }
            Call call = new Call(attempt, maxTokens, sink);
            long arrive = Math.max(sentAt + spec.oneWayMs() + World.between(random, 0, spec.jitterMs()), lastArrivalMs);
            lastArrivalMs = arrive;
            time.schedule(() -> arrive(call), arrive - sentAt, TimeUnit.MILLISECONDS);
            sink.onCancel(() -> {
                call.cancelled = true;
                long closeAt = Math.max(now() + spec.oneWayMs(), lastArrivalMs);
                lastArrivalMs = closeAt;
                time.schedule(() -> closed(call), closeAt - now(), TimeUnit.MILLISECONDS);
            });
        });
    }

    private static final class Call {
        final Attempt attempt;
        final long maxTokens;
        final reactor.core.publisher.MonoSink<Answer> sink;
        boolean cancelled; // the gateway closed the connection
        boolean holding; // counted in flight here
        boolean ended;

        Call(Attempt attempt, long maxTokens, reactor.core.publisher.MonoSink<Answer> sink) {
            this.attempt = attempt;
            this.maxTokens = maxTokens;
            this.sink = sink;
        }
    }

    private boolean outage(long at, World.OutageKind kind) {
        for (World.Outage o : spec.outages()) if (o.kind() == kind && o.covers(at)) return true;
        return false;
    }

    private void slide(long own) {
        while (!log.isEmpty() && log.peekFirst()[0] <= own - WINDOW_MS) logTokens -= log.pollFirst()[1];
    }

    private void arrive(Call call) {
        long at = now();
        long own = clock.millis();
        slide(own);
        Attempt a = call.attempt;
        long prompt = counted(a.promptTokens);
        long tokens = prompt + call.maxTokens;
        String over = null;
        long used = 0;
        long wanted = 0;
        long limit = 0;
        if (log.size() + 1 > spec.rpm()) {
            over = "requests-per-minute";
            used = log.size();
            wanted = 1;
            limit = spec.rpm();
        } else if (logTokens + tokens > spec.tpm()) {
            over = "tokens-per-minute";
            used = logTokens;
            wanted = tokens;
            limit = spec.tpm();
        } else if (inFlight + 1 > spec.maxInFlight()) {
            over = "max-in-flight";
            used = inFlight;
            wanted = 1;
            limit = spec.maxInFlight();
        }
        if (over != null) {
            limit429++;
            a.pushedBack++;
            Violation v = new Violation(spec.name(), at, over, used, wanted, limit, a.id);
            violations.add(v);
            trace.event(at, "over-limit", a.id, used, wanted, limit);
            long wait = log.isEmpty() ? 1_000 : Math.max(1, log.peekFirst()[0] + WINDOW_MS - own);
            answer(call, at + 5, new Answer(429, null, wait, -1, -1, -1, -1));
            return;
        }
        if (outage(at, World.OutageKind.ERRORS)) {
            errors++;
            a.processed++;
            count(own, tokens);
            hold(call);
            int status = World.pick(random, 500, 502, 502, 504);
            long done = at + World.between(random, 5, 200);
            trace.event(at, "error", a.id, status);
            answer(call, done, new Answer(status, null, -1, -1, -1, -1, done - at));
            return;
        }
        if (spec.pushBack429() > 0 && random.nextDouble() < spec.pushBack429()) {
            injected429++;
            a.pushedBack++;
            long retry = World.between(random, 100, spec.retryAfterMaxMs());
            trace.event(at, "push-back", a.id, 429, retry);
            answer(call, at + 5, new Answer(429, null, retry, -1, -1, -1, -1));
            return;
        }
        if (spec.overload503() > 0 && random.nextDouble() < spec.overload503()) {
            injected503++;
            a.pushedBack++;
            long retry = random.nextBoolean() ? -1 : World.between(random, 100, 2_000);
            trace.event(at, "push-back", a.id, 503, retry);
            answer(call, at + 5, new Answer(503, null, retry, -1, -1, -1, -1));
            return;
        }
        a.processed++;
        served++;
        count(own, tokens);
        hold(call);
        long written = call.maxTokens == 0 ? 0 : World.between(random, Math.max(1, call.maxTokens / 5), call.maxTokens);
        double ms = spec.firstTokenMs() + spec.msPerToken() * written;
        if (random.nextDouble() < spec.slowShare()) ms *= 2 + 4 * random.nextDouble();
        long done = at + Math.max(1, Math.round(ms));
        trace.event(at, "taken", a.id, prompt, call.maxTokens, written, done - at);
        time.schedule(
                () -> {
                    long ownEnd = clock.millis();
                    slide(ownEnd);
                    long reset = log.isEmpty() ? 0 : Math.max(0, log.peekLast()[0] + WINDOW_MS - ownEnd);
                    Answer answer = new Answer(
                            200,
                            new Usage(prompt, written),
                            -1,
                            spec.remaining() ? Math.max(0, spec.rpm() - log.size()) : -1,
                            spec.remaining() ? Math.max(0, spec.tpm() - logTokens) : -1,
                            spec.remaining() ? reset : -1,
                            spec.processingMs() ? done - at : -1);
                    answerNow(call, answer);
                },
                done - at,
                TimeUnit.MILLISECONDS);
    }

    /** The prompt as this provider counts it. */
    private long counted(long estimate) {
        if (estimate <= 0) return 0;
        double factor = spec.countFactor() * (1 + spec.countNoise() * gaussian());
        return Math.max(1, Math.round(estimate * factor));
    }

    /** A standard normal draw, clipped to ±3 (Box-Muller on the run's own generator). */
    private double gaussian() {
        double u = Math.max(1e-12, random.nextDouble());
        double g = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.nextDouble());
        return Math.max(-3, Math.min(3, g));
    }

    private void count(long own, long tokens) {
        log.addLast(new long[] {own, tokens});
        logTokens += tokens;
        peakRequests = Math.max(peakRequests, (double) log.size() / spec.rpm());
        peakTokens = Math.max(peakTokens, (double) logTokens / spec.tpm());
    }

    private void hold(Call call) {
        call.holding = true;
        inFlight++;
        peakInFlight = Math.max(peakInFlight, (double) inFlight / spec.maxInFlight());
    }

    private void release(Call call) {
        if (!call.holding) return;
        call.holding = false;
        inFlight--;
    }

    private void answer(Call call, long atMs, Answer answer) {
        time.schedule(() -> answerNow(call, answer), Math.max(0, atMs - now()), TimeUnit.MILLISECONDS);
    }

    /** The answer leaves: the call is no longer held here, and it reaches the gateway a one-way trip later. */
    private void answerNow(Call call, Answer answer) {
        call.ended = true;
        release(call);
        if (call.cancelled) return;
        trace.event(now(), "answer", call.attempt.id, answer.status());
        time.schedule(
                () -> {
                    if (!call.cancelled) call.sink.success(answer);
                },
                spec.oneWayMs() + World.between(random, 0, spec.jitterMs()),
                TimeUnit.MILLISECONDS);
    }

    /** The gateway closed the connection: a call still running stops counting in flight (its tokens stay counted). */
    private void closed(Call call) {
        if (!call.ended) trace.event(now(), "closed", call.attempt.id);
        release(call);
    }

    String summary() {
        return String.format(
                "%s: %d calls, %d served, %d over a limit, 429 %d, 503 %d, 5xx %d, refused %d; peak %.0f%% rpm, "
                        + "%.0f%% tpm, %.0f%% in flight",
                spec.name(),
                calls,
                served,
                limit429,
                injected429,
                injected503,
                errors,
                refused,
                100 * peakRequests,
                100 * peakTokens,
                100 * peakInFlight);
    }

    /** Calls still held at the end (the gateway never closed or awaited them). */
    List<String> leftOver() {
        List<String> out = new ArrayList<>();
        if (inFlight != 0) out.add(spec.name() + " holds " + inFlight + " call(s) in flight at the end");
        return out;
    }
}
