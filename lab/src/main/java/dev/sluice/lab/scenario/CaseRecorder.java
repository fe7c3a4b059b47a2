package dev.sluice.lab.scenario;

import dev.sluice.lab.provider.Admission;
import dev.sluice.lab.provider.LabCall;
import dev.sluice.lab.provider.LabLimits;
import dev.sluice.lab.provider.LabStats;
import dev.sluice.lab.provider.ProviderSimulator;
import dev.sluice.lab.scenario.LabReport.CaseResult;
import dev.sluice.lab.scenario.LabReport.Failure;
import dev.sluice.lab.scenario.LabReport.RampResult;
import dev.sluice.lab.scenario.LabReport.Step;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * What one run of one case did, as it happens: books and their pages, waits, the provider's
 * decisions (as its {@link ProviderSimulator.Listener}) and our own refusals, the first failure.
 * Times are milliseconds on the run's clock (seed units). Thread-safe; no I/O.
 */
public final class CaseRecorder implements ProviderSimulator.Listener {

    /** One uploaded book: clean when every one of its pages came back with an answer. */
    public static final class Book {
        private final int user;
        private final int pages;
        private int ok;
        private int failed;
        private long billedTokens;

        private Book(int user, int pages) {
            this.user = user;
            this.pages = pages;
        }

        public int user() {
            return user;
        }
    }

    private final long startMs;
    private final double pricePerMillionTokens;
    private final Timeline timeline;
    private final AtomicInteger activeUsers = new AtomicInteger();
    private final AtomicInteger mostUsers = new AtomicInteger();
    private final AtomicLong pagesSent = new AtomicLong();
    private final AtomicLong busyAnswers = new AtomicLong();
    private final AtomicLong limiterRefusals = new AtomicLong();
    private final AtomicLong otherErrors = new AtomicLong();
    private final List<Book> books = new ArrayList<>();
    private final List<Step> steps = new ArrayList<>();
    /** Calls admitted since the start, until released: a call admitted before it is not ours to count out. */
    private final Set<LabCall> running = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Every page's wait in ms, to 3 significant digits: its size follows the longest wait, not the page count. */
    private final Histogram waits = new Histogram(3);

    private long lastAnswerMs;
    private Failure firstFailure;
    private long firstFailureMs = Long.MAX_VALUE;

    public CaseRecorder(long startMs, double pricePerMillionTokens) {
        this(startMs, pricePerMillionTokens, Timeline.MINUTE_MS);
    }

    /** @param windowMs the provider's rolling window, so the timeline counts its tokens as it does */
    public CaseRecorder(long startMs, double pricePerMillionTokens, long windowMs) {
        this.startMs = startMs;
        this.pricePerMillionTokens = pricePerMillionTokens;
        this.timeline = new Timeline(startMs, windowMs);
        this.lastAnswerMs = startMs;
    }

    public long startMs() {
        return startMs;
    }

    /** A user starts uploading; {@code atMs} is noted as a ramp step when the count changes. */
    public synchronized void usersNow(int users, long atMs) {
        activeUsers.set(users);
        mostUsers.accumulateAndGet(users, Math::max);
        steps.add(new Step(seconds(atMs), users));
    }

    public int activeUsers() {
        return activeUsers.get();
    }

    public synchronized Book startBook(int user, int pages) {
        Book b = new Book(user, pages);
        books.add(b);
        return b;
    }

    public void pageSent() {
        pagesSent.incrementAndGet();
    }

    /** A page's final answer: {@code ok} with the tokens the provider billed, or failed. */
    public synchronized void pageDone(Book book, boolean ok, long submittedMs, long answeredMs, long billedTokens) {
        if (ok) book.ok++;
        else book.failed++;
        book.billedTokens += Math.max(0, billedTokens);
        waits.recordValue(Math.max(0, answeredMs - submittedMs));
        lastAnswerMs = Math.max(lastAnswerMs, answeredMs);
    }

    /** Refused on our side: by the limiter (case 3), the gateway's door (case 4) or a timeout (case 5's pool). */
    public void refused(long atMs, FailureLimit why) {
        switch (why) {
            case LIMITER -> limiterRefusals.incrementAndGet();
            case GATEWAY_BUSY -> busyAnswers.incrementAndGet();
            default -> {}
        }
        timeline.refusal(atMs);
        failed(atMs, why);
    }

    /** Anything the scenario does not expect (a 502, a refused connection): counted, never a silent success. */
    public void unexpected(long atMs) {
        otherErrors.incrementAndGet();
        timeline.refusal(atMs);
    }

    public long unexpectedErrors() {
        return otherErrors.get();
    }

    @Override
    public void decided(long nowMillis, Admission admission, long reservedTokens) {
        if (admission instanceof Admission.Rejected r) {
            timeline.providerError(nowMillis);
            failed(nowMillis, FailureLimit.of(r.reason()));
        } else {
            timeline.admitted(nowMillis, reservedTokens);
            if (admission instanceof Admission.Admitted a && a.call() != null) {
                synchronized (running) {
                    running.add(a.call());
                }
            }
        }
    }

    @Override
    public void released(long nowMillis, LabCall call) {
        boolean ours;
        synchronized (running) {
            ours = running.remove(call);
        }
        if (ours) timeline.released(nowMillis);
    }

    public synchronized Failure firstFailure() {
        return firstFailure;
    }

    /** When the first failure was, on the run's clock; {@link Long#MAX_VALUE} while there was none. */
    public synchronized long firstFailureMs() {
        return firstFailureMs;
    }

    private synchronized void failed(long atMs, FailureLimit why) {
        if (atMs < firstFailureMs) {
            firstFailureMs = atMs;
            firstFailure = new Failure(round1(seconds(atMs)), activeUsers.get(), why.wire());
        }
    }

    /** The case's row, with the provider's own counts (pages it refused, the bill) from {@code provider}. */
    public synchronized CaseResult caseResult(CaseId id, LabStats provider) {
        long clean = 0;
        long wastedTokens = 0;
        for (Book b : books) {
            if (b.ok == b.pages) clean++; // a page never answered (the run was cut) breaks the book too
            else wastedTokens += b.billedTokens;
        }
        return new CaseResult(
                id.id(),
                id.title(),
                mostUsers.get(),
                round1(seconds(lastAnswerMs)),
                pagesSent.get(),
                provider.rejected429() + provider.rejected503(),
                books.size(),
                clean,
                round4(provider.costUsd()),
                round4(wastedTokens * pricePerMillionTokens / 1_000_000.0),
                firstFailure,
                waits.getValueAtPercentile(50),
                waits.getValueAtPercentile(95),
                busyAnswers.get(),
                limiterRefusals.get(),
                provider.limits().tokensPerMinute(),
                provider.limits().maxInFlight(),
                timeline.points());
    }

    public synchronized RampResult rampResult(CaseId id, LabLimits limits) {
        return new RampResult(
                id.id(), firstFailure, steps, limits.tokensPerMinute(), limits.maxInFlight(), timeline.points());
    }

    private double seconds(long atMs) {
        return Math.max(0, atMs - startMs) / 1000.0;
    }

    private static double round1(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private static double round4(double v) {
        return Math.round(v * 10_000) / 10_000.0;
    }
}
