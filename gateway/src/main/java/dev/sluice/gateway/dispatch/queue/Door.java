package dev.sluice.gateway.dispatch.queue;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.budget.ProviderBudget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Backpressure at the door (seed 000, case 4): before a job is queued, estimate when it would
 * be sent, and answer busy at once if that is past what the caller will wait. Honest, not
 * optimistic: the queue protects the provider, it does not create capacity.
 *
 * <p>The estimate: everything the budget holds now, everything ahead of the job in service
 * order ({@link FairQueue#aheadOf}) and the job itself must pass through the budget. In the
 * rolling windows (tokens, requests) what exceeds the standing room goes when enough of the
 * window has left it, and the window's own schedule says when that is
 * ({@link Capacity#leaving}): a window filled evenly frees a little every second, so N pages
 * of 800 tokens ahead of a saturated 300,000-token minute wait about
 * {@code (N + 1) × 800 / 300,000} minutes; a window filled by one burst frees nothing until
 * that burst leaves it, a whole minute later, so the page after the burst waits a minute, not
 * 160 ms. Beyond what the window holds now, what is sent as it frees stays a window in turn.
 * Calls drain at {@code inFlightLimit / meanCallMs} per ms (Little's law, seed 002). The
 * wait is the slowest of the three, and at least the rest of a pause. Without a schedule
 * (unknown), the windows are assumed to free as fast as they fill.
 *
 * <p><b>A promise.</b> Admitting a job promises it a start before its deadline. Later arrivals
 * owed an earlier turn (fair lanes) may go first only where that breaks no firm promise; a
 * promise made within the last {@link #BURST_MS} gives way instead, answered at once, so a
 * burst is shared fairly whatever the order its calls reached the door in (see {@link #admit}).
 *
 * <p>Pure; the queue it reads is single-threaded, so call it from the dispatcher.
 */
public final class Door {

    /**
     * The budget as the door sees it: rates (after headroom, and the adaptive in-flight limit),
     * what is used now, and how long calls take.
     */
    public record Capacity(long tokensPerMinute, long requestsPerMinute, int inFlightLimit, long meanCallMs,
                           long usedTokens, long usedRequests, int inFlight, long pausedForMs, List<Freed> leaving,
                           long moveMs) {
        public Capacity {
            if (tokensPerMinute < 1 || requestsPerMinute < 1 || inFlightLimit < 1) {
                throw new IllegalArgumentException("capacity rates must be at least 1");
            }
            if (meanCallMs < 0 || usedTokens < 0 || usedRequests < 0 || inFlight < 0 || pausedForMs < 0 || moveMs < 0) {
                throw new IllegalArgumentException("capacity usage must not be negative");
            }
            leaving = leaving == null ? null : List.copyOf(leaving);
        }

        /** Charges that stay where they were stamped ({@code moveMs} 0). */
        public Capacity(long tokensPerMinute, long requestsPerMinute, int inFlightLimit, long meanCallMs,
                        long usedTokens, long usedRequests, int inFlight, long pausedForMs, List<Freed> leaving) {
            this(tokensPerMinute, requestsPerMinute, inFlightLimit, meanCallMs, usedTokens, usedRequests, inFlight,
                    pausedForMs, leaving, 0);
        }

        /** Without the window's schedule: the windows are assumed to free as fast as they fill. */
        public Capacity(long tokensPerMinute, long requestsPerMinute, int inFlightLimit, long meanCallMs,
                        long usedTokens, long usedRequests, int inFlight, long pausedForMs) {
            this(tokensPerMinute, requestsPerMinute, inFlightLimit, meanCallMs, usedTokens, usedRequests, inFlight,
                    pausedForMs, null);
        }

        /** From a budget snapshot (its limits may carry the adaptive in-flight limit) and the measured mean call time. */
        public static Capacity of(BudgetSnapshot s, long meanCallMs) {
            return of(s, meanCallMs, 0);
        }

        /**
         * The same, with charges moved {@code moveMs} later at settlement (learned: how much
         * later than stamped the answers prove the provider counted its calls). A charge made
         * less than that ago is taken to leave the window that much later than it says now;
         * every later cycle of the window is that much longer.
         */
        public static Capacity of(BudgetSnapshot s, long meanCallMs, long moveMs) {
            BudgetLimits l = s.limits();
            List<Freed> leaving = null; // not read by the store: windowWait assumes an even drain
            if (s.leaving() != null) {
                leaving = new ArrayList<>(s.leaving().size());
                for (BudgetSnapshot.Leaving x : s.leaving()) {
                    long inMs = Math.max(0, x.atMs() - s.nowMs());
                    long age = Math.max(0, CYCLE_MS - inMs);
                    leaving.add(new Freed(inMs + Math.max(0, moveMs - age), x.tokens(), x.requests()));
                }
            }
            return new Capacity(l.tokensPerMinute(), l.requestsPerMinute(), l.maxInFlight(), meanCallMs,
                    s.usedTokens(), s.usedRequests(), s.inFlight(), s.pausedForMs(), leaving, Math.max(0, moveMs));
        }

        /** How long what is sent now stays in the window: a cycle, and the move at settlement. */
        long cycleMs() {
            return CYCLE_MS + moveMs;
        }

        /** The same budget, paused for {@code ms} (a failing provider's circuit). */
        public Capacity pausedFor(long ms) {
            return new Capacity(tokensPerMinute, requestsPerMinute, inFlightLimit, meanCallMs, usedTokens, usedRequests,
                    inFlight, Math.max(0, ms), leaving, moveMs);
        }

        /** What batch may use: each limit less the interactive reserve (see {@link BudgetView#admits}). */
        public Capacity forBatch(double interactiveFloor) {
            return new Capacity(
                    Math.max(1, tokensPerMinute - BudgetView.reserve(tokensPerMinute, interactiveFloor)),
                    Math.max(1, requestsPerMinute - BudgetView.reserve(requestsPerMinute, interactiveFloor)),
                    (int) Math.max(1, inFlightLimit - BudgetView.reserve(inFlightLimit, interactiveFloor)),
                    meanCallMs, usedTokens, usedRequests, inFlight, pausedForMs, leaving, moveMs);
        }
    }

    /** Usage that leaves the rolling window {@code inMs} from now. */
    public record Freed(long inMs, long tokens, long requests) {
    }

    /** Longest a charge stays in a budget's window: the minute and the slot it was made in. */
    static final long CYCLE_MS = ProviderBudget.WINDOW_MS + ProviderBudget.SLOT_MS;

    /**
     * How long after its admission a queued job may still give its place to a newcomer owed an
     * earlier turn. A burst's calls reach the door one by one over a few hundred milliseconds;
     * within this span they are decided as one burst would be, in fair order, whoever's came
     * first. Past it, the job's promise is firm: a newcomer that would push it past its
     * deadline is refused instead.
     */
    public static final long BURST_MS = 500;

    /**
     * The fixed part of the margin a promise keeps ahead of its deadline ({@link #marginMs}):
     * calls drain as Little's law says, not exactly.
     */
    public static final long PROMISE_MARGIN_MS = 1_000;

    private final FairQueue queue;
    private final RecentDemand demand = new RecentDemand();
    /** The other replicas' demand for this budget, as the last share of the fair queues said (none alone). */
    private Map<String, LaneShare.Demand> elsewhere = Map.of();

    public Door(FairQueue queue) {
        this.queue = queue;
    }

    /** {@link #admit(Job, Capacity, long, long)} at the job's enqueue time. */
    public DoorDecision admit(Job job, Capacity capacity, long maxWaitMs) {
        return admit(job, capacity, maxWaitMs, job.enqueuedAtMs());
    }

    /**
     * Whether to queue {@code job}, given the budget now and the longest the caller will wait
     * ({@code X-Sluice-Max-Wait}, default 60 s). Batch jobs are estimated against what batch
     * may use. Three checks:
     * <ol>
     * <li><b>Its turn, counting those who will be back.</b> The work ahead of it in fair order
     *     ({@link FairQueue#aheadOf}), plus what each other tenant has queued on other replicas
     *     and was refused in the door's span, up to the job's own turn in counter order ({@link RecentDemand}):
     *     a closed-loop crowd asks once per book, so whoever is back first must not be promised
     *     the minute the others will ask for a second later.</li>
     * <li><b>Promises kept.</b> Its turn may come before jobs admitted earlier (fair lanes). If
     *     that pushes one of them past its deadline, the job is refused (busy), unless the one
     *     pushed was admitted within {@link #BURST_MS}: that one is displaced instead
     *     ({@link DoorDecision#displaced}), answered busy at once.</li>
     * <li><b>A full queue</b> says {@link DoorDecision.Verdict#QUEUE_FULL} only to a tenant
     *     holding about the most of it; anyone else is accepted, and the caller makes room with
     *     {@link FairQueue#victimFor}.</li>
     * </ol>
     * Call {@link #asked} for a job every door of its route refused.
     */
    public DoorDecision admit(Job job, Capacity capacity, long maxWaitMs, long nowMs) {
        Capacity c = classCapacity(job.jobClass(), capacity);
        WorkAhead ahead = queue.aheadOf(job);
        WorkAhead owed = expectedAhead(job, ahead, nowMs);
        DoorDecision d = decide(job.tokens(), owed, c, maxWaitMs);
        if (!d.accepted()) return new DoorDecision(d.verdict(), ahead.position(), d.estimatedWaitMs(), d.retryAfterMs());
        d = new DoorDecision(d.verdict(), ahead.position(), d.estimatedWaitMs(), 0);
        if (ahead.jobs() < queue.depth()) {
            DoorDecision kept = keepPromises(job, capacity, maxWaitMs, nowMs, d);
            if (!kept.accepted()) return kept;
            d = kept;
        }
        // A full queue refuses only a tenant that holds about the most of it; anyone else takes the place of the hog's last job.
        if (queue.isFull() && d.displaced().isEmpty() && queue.victimFor(job).isEmpty()) {
            return new DoorDecision(DoorDecision.Verdict.QUEUE_FULL, d.position(), d.estimatedWaitMs(), drainOneMs(ahead, c));
        }
        return d;
    }

    /** Records that {@code job} asked at this door and was refused: see {@link RecentDemand}. */
    public void asked(Job job, long nowMs) {
        demand.asked(job.tenant(), job.priority(), job.tokens(), nowMs);
    }

    /** The other replicas' demand for this budget ({@code LaneSharing}); empty when alone or not shared. */
    public void elsewhere(Map<String, LaneShare.Demand> demandElsewhere) {
        this.elsewhere = Map.copyOf(demandElsewhere);
    }

    /** This door's demand, per tenant, for the other replicas' doors. */
    public List<LaneShare.Demand> demandHere(long nowMs) {
        List<LaneShare.Demand> out = new ArrayList<>();
        demand.forEach(nowMs, (tenant, priority, tokens, requests) ->
                out.add(new LaneShare.Demand(tenant, priority, queue.queuedTokens(tenant), tokens, requests)));
        return out;
    }

    private Capacity classCapacity(JobClass jobClass, Capacity capacity) {
        return jobClass == JobClass.BATCH ? capacity.forBatch(queue.interactiveFloor()) : capacity;
    }

    /**
     * {@code ahead}, plus each other tenant's work not in this queue (queued on other replicas,
     * and refused in the span, here and there), as far as that work would come before the job
     * in counter order were it queued now.
     */
    private WorkAhead expectedAhead(Job job, WorkAhead ahead, long nowMs) {
        Map<String, LaneShare.Demand> all = new HashMap<>(elsewhere);
        for (LaneShare.Demand here : demandHere(nowMs)) all.merge(here.tenant(), here, LaneShare.Demand::plus);
        long turn = queue.tagOf(job);
        int moreJobs = 0;
        long moreTokens = 0;
        for (LaneShare.Demand d : all.values()) {
            LaneShare.Demand there = elsewhere.get(d.tenant());
            long queuedThere = there == null ? 0 : there.queuedTokens();
            if (d.tenant().equals(job.tenant())) {
                // Its own lane's jobs queued on other replicas joined before it and draw on the same budget.
                if (queuedThere > 0) {
                    long perJob = Math.max(1, job.tokens());
                    moreJobs = (int) Math.min(Integer.MAX_VALUE, moreJobs + (queuedThere + perJob - 1) / perJob);
                    moreTokens = LaneShare.clamp(moreTokens + queuedThere);
                }
                continue;
            }
            long notHere = queuedThere + d.askedTokens(); // queued elsewhere, and refused here or there in the span
            if (notHere <= 0) continue;
            long tail = queue.tailTagOf(d.tenant());
            if (turn <= tail) continue;
            long before = Math.min(notHere, (turn - tail) / d.priority());
            if (before <= 0) continue;
            long meanTokens = Math.max(1, d.askedRequests() == 0 ? before : d.askedTokens() / d.askedRequests());
            moreJobs = (int) Math.min(Integer.MAX_VALUE, moreJobs + (before + meanTokens - 1) / meanTokens);
            moreTokens = LaneShare.clamp(moreTokens + before);
        }
        return moreTokens == 0 ? ahead : ahead.plus(moreJobs, moreTokens);
    }

    /**
     * The promises check (see {@link #admit}). A job queued behind the candidate's fair turn,
     * predicted to start in time without it and late with it, is "pushed". Pushing only jobs
     * admitted within {@link #BURST_MS}: they are displaced. Pushing a firm one: the candidate
     * goes right behind the last firm job it would push (its turn deferred, see
     * {@link DoorDecision#turnAtLeast}), if it can still start within its own wait there;
     * otherwise it is refused. Inserting the candidate anywhere before a job delays that job
     * by the same amount, so which jobs it pushes does not depend on where it goes.
     */
    private DoorDecision keepPromises(Job job, Capacity capacity, long maxWaitMs, long nowMs, DoorDecision accepted) {
        List<FairQueue.Turn> order = queue.turns();
        int fair = accepted.position() - 1; // its index among the queued jobs in fair order
        Capacity own = classCapacity(job.jobClass(), capacity);
        Capacity batch = classCapacity(JobClass.BATCH, capacity);
        // Both capacities share one window: its schedule is indexed once for every estimate below.
        Schedule tokenSchedule = Schedule.of(capacity.leaving(), Freed::tokens);
        Schedule requestSchedule = Schedule.of(capacity.leaving(), Freed::requests);
        int lastFirm = -1;
        record Pushed(int index, DoorDecision.Displaced displaced) {
        }
        List<Pushed> pushedInBurst = new ArrayList<>();
        int jobs = 0;
        long tokens = 0;
        int[] jobsAt = new int[order.size() + 1];
        long[] tokensAt = new long[order.size() + 1];
        for (int i = 0; i < order.size(); i++) {
            Job j = order.get(i).job();
            Capacity c = j.jobClass() == JobClass.BATCH ? batch : capacity;
            jobsAt[i] = jobs;
            tokensAt[i] = tokens;
            if (i >= fair) {
                long allowed = longestPromisedMs(j.deadlineMs() - nowMs);
                long without = estimateWaitMs(j.tokens(), new WorkAhead(jobs, tokens), c, tokenSchedule, requestSchedule);
                long with = estimateWaitMs(j.tokens(), new WorkAhead(jobs + 1, LaneShare.clamp(tokens + job.tokens())), c,
                        tokenSchedule, requestSchedule);
                if (without <= allowed && with > allowed) {
                    if (nowMs - j.enqueuedAtMs() < BURST_MS) pushedInBurst.add(new Pushed(i, new DoorDecision.Displaced(j, with)));
                    else lastFirm = i;
                }
            }
            jobs++;
            tokens = LaneShare.clamp(tokens + j.tokens());
        }
        jobsAt[order.size()] = jobs;
        tokensAt[order.size()] = tokens;
        int at = lastFirm < 0 ? fair : lastFirm + 1;
        List<DoorDecision.Displaced> displaced = new ArrayList<>();
        for (Pushed p : pushedInBurst) {
            if (p.index() >= at) displaced.add(p.displaced()); // ahead of where the candidate goes: not pushed
        }
        if (lastFirm < 0) {
            return new DoorDecision(DoorDecision.Verdict.ACCEPT, accepted.position(), accepted.estimatedWaitMs(), 0,
                    displaced, Long.MIN_VALUE);
        }
        long wait = Math.max(accepted.estimatedWaitMs(),
                estimateWaitMs(job.tokens(), new WorkAhead(jobsAt[at], tokensAt[at]), own, tokenSchedule, requestSchedule));
        long promised = longestPromisedMs(maxWaitMs);
        if (wait > promised) {
            // Asking again when the wait behind those promises is one the door promises: what is ahead of that
            // place drains meanwhile (telling it to wait for the end of the whole line sent every tenant away
            // for a minute, and the next minute went to whoever came back first).
            return new DoorDecision(DoorDecision.Verdict.BUSY, accepted.position(), wait, Math.max(1_000, wait - promised));
        }
        return new DoorDecision(DoorDecision.Verdict.ACCEPT, at + 1, wait, 0, displaced, order.get(lastFirm).tag() + 1);
    }

    /** The decision from numbers alone: the job's tokens, the work ahead, the budget. */
    public static DoorDecision decide(long tokens, WorkAhead ahead, Capacity c, long maxWaitMs) {
        if (tokens > c.tokensPerMinute()) return new DoorDecision(DoorDecision.Verdict.TOO_LARGE, ahead.position(), -1, -1);
        long wait = estimateWaitMs(tokens, ahead, c);
        long promised = longestPromisedMs(maxWaitMs);
        if (wait > promised) {
            return new DoorDecision(DoorDecision.Verdict.BUSY, ahead.position(), wait, Math.max(1, wait - promised));
        }
        return new DoorDecision(DoorDecision.Verdict.ACCEPT, ahead.position(), wait, 0);
    }

    /** Milliseconds until a job of {@code tokens} with {@code ahead} in front of it is sent. */
    public static long estimateWaitMs(long tokens, WorkAhead ahead, Capacity c) {
        return estimateWaitMs(tokens, ahead, c, Schedule.of(c.leaving(), Freed::tokens), Schedule.of(c.leaving(), Freed::requests));
    }

    /** The same, with the window's schedules indexed once for many estimates against one capacity. */
    private static long estimateWaitMs(long tokens, WorkAhead ahead, Capacity c, Schedule tokenSchedule, Schedule requestSchedule) {
        long calls = ahead.jobs() + 1L;
        long tokenWait = windowWait(LaneShare.clamp(ahead.tokens() + tokens), c.usedTokens(), c.tokensPerMinute(), tokenSchedule, c.cycleMs());
        long requestWait = windowWait(calls, c.usedRequests(), c.requestsPerMinute(), requestSchedule, c.cycleMs());
        long slotWait = drain(c.inFlight() + calls - c.inFlightLimit(), c.meanCallMs(), c.inFlightLimit());
        return Math.max(c.pausedForMs(), Math.max(tokenWait, Math.max(requestWait, slotWait)));
    }

    /**
     * How far ahead of its deadline a job estimated to start in {@code estimateMs} must be for the
     * door to promise it: {@link #PROMISE_MARGIN_MS} (the estimate itself when shorter), and a
     * twentieth of the estimate. The estimate's error grows with it: a window that frees a second later than its schedule said
     * (charges re-dated at settlement, calls still in flight when the promise was made) errs by
     * seconds on a minute's wait and by nothing on a page sent at once. The judged crowd's broken
     * promises were all estimates of 57–60 s against a 60 s wait, started 1–3 s late.
     */
    static long marginMs(long estimateMs) {
        long e = Math.max(0, estimateMs);
        return Math.min(PROMISE_MARGIN_MS, e) + e / 20;
    }

    /**
     * The longest estimate the door promises within {@code maxWaitMs}: the largest {@code e} with
     * {@code e + marginMs(e) <= maxWaitMs} (the sum grows with {@code e}). Room now (0) is a fact,
     * not a forecast, and carries no margin: {@code X-Sluice-Max-Wait: 0} still gets in at once.
     */
    public static long longestPromisedMs(long maxWaitMs) {
        if (maxWaitMs <= 0) return 0;
        long lo = 0;
        long hi = Math.min(maxWaitMs, Long.MAX_VALUE / 4); // no overflow in hi - lo + 1, nor in mid + its margin
        while (lo < hi) {
            long mid = lo + (hi - lo + 1) / 2;
            if (mid + marginMs(mid) <= maxWaitMs) lo = mid;
            else hi = mid - 1;
        }
        return lo;
    }

    /**
     * The soonest {@code job} could be sent were it first in line: when the rolling windows
     * have room for it (batch: above the interactive reserve) and any pause is over. Slots free
     * as calls end and are not counted, so this is a lower bound for every job behind it.
     */
    public static long earliestSendMs(Job job, Capacity capacity, double interactiveFloor) {
        Capacity c = job.jobClass() == JobClass.BATCH ? capacity.forBatch(interactiveFloor) : capacity;
        long tokens = windowWait(job.tokens(), c.usedTokens(), c.tokensPerMinute(), c.leaving(), Freed::tokens, c.cycleMs());
        long requests = windowWait(1, c.usedRequests(), c.requestsPerMinute(), c.leaving(), Freed::requests, c.cycleMs());
        return Math.max(c.pausedForMs(), Math.max(tokens, requests));
    }

    /**
     * When {@code need} more fit a rolling window of {@code cap} that holds {@code used}, which
     * leaves it as {@code leaving} says. What exceeds the room now must wait for the window's
     * content to leave, in its order. Past that, what is sent now and as the window frees stays
     * in the window for a cycle ({@link #CYCLE_MS}) in turn: each later cycle frees {@code cap},
     * in the same order (the room taken now first, then the current content's schedule).
     * Without a schedule, the window frees at {@code cap} per minute from now.
     */
    static long windowWait(long need, long used, long cap, List<Freed> leaving, ToLongFunction<Freed> amount, long cycleMs) {
        return windowWait(need, used, cap, Schedule.of(leaving, amount), cycleMs);
    }

    private static long windowWait(long need, long used, long cap, Schedule leaving, long cycleMs) {
        long excess = used + need - cap;
        if (excess <= 0) return 0;
        if (leaving == null) return drain(excess, 60_000, cap);
        if (excess <= leaving.total()) return Math.max(1, leaving.whenReached(excess));
        long rest = excess - leaving.total(); // beyond what the window holds now
        long cycles = (rest - 1) / cap;       // whole cycles of cap each, after the first
        long last = rest - cycles * cap;      // 1..cap, freed in the cycle after those
        long shift = (cycles + 1) * cycleMs;
        long room = Math.max(0, cap - used);  // taken now: leaves first in every later cycle
        if (last <= room) return shift;
        last -= room;
        if (last <= leaving.total()) return shift + leaving.whenReached(last);
        return shift + cycleMs; // the schedule did not sum to the used count: a cycle more at most
    }

    /**
     * One amount of a window's leaving schedule, summed as it leaves: when the first {@code x}
     * have left is a binary search, so the promises check estimates every queued job against
     * one capacity in O(n log m), not O(n × m) (a 600-page burst against a window of 300 calls
     * held the dispatch loop for seconds, and the door's refusals with it).
     */
    record Schedule(long[] atMs, long[] summed) {
        static Schedule of(List<Freed> leaving, ToLongFunction<Freed> amount) {
            if (leaving == null) return null;
            long[] at = new long[leaving.size()];
            long[] sum = new long[leaving.size()];
            long total = 0;
            for (int i = 0; i < at.length; i++) {
                Freed f = leaving.get(i);
                total = LaneShare.clamp(total + Math.max(0, amount.applyAsLong(f)));
                at[i] = f.inMs();
                sum[i] = total;
            }
            return new Schedule(at, sum);
        }

        long total() {
            return summed.length == 0 ? 0 : summed[summed.length - 1];
        }

        /** When at least {@code x} (1..total) has left: the first entry whose running sum reaches it. */
        long whenReached(long x) {
            int lo = 0;
            int hi = summed.length - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (summed[mid] >= x) hi = mid;
                else lo = mid + 1;
            }
            return atMs[lo];
        }
    }

    /** ceil(excess × periodMs / perPeriod), 0 when nothing exceeds. */
    private static long drain(long excess, long periodMs, long perPeriod) {
        if (excess <= 0 || periodMs == 0) return 0;
        return (long) Math.ceil((double) excess * periodMs / perPeriod);
    }

    /** How soon one job's worth of the queue is sent: when a full queue has a place again. */
    private static long drainOneMs(WorkAhead ahead, Capacity c) {
        long meanTokens = ahead.jobs() == 0 ? 0 : ahead.tokens() / ahead.jobs();
        return Math.max(1, Math.max(drain(meanTokens, 60_000, c.tokensPerMinute()),
                Math.max(drain(1, 60_000, c.requestsPerMinute()), drain(1, c.meanCallMs(), c.inFlightLimit()))));
    }
}
