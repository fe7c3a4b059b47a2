package dev.sluice.gateway.dispatch.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The work a door expects ahead of a job that is not in its queue: what each tenant has queued
 * on other replicas, and what it asked and was refused in the span ({@link RecentDemand}), here
 * and there. A closed-loop crowd asks once per book, so whoever is back first must not be
 * promised the minute the others will ask for a second later.
 */
final class ExpectedDemand {
    private final TenantLanes lanes;
    private final RecentDemand demand = new RecentDemand();
    /** The other replicas' demand for this budget, as the last share of the fair queues said (none alone). */
    private Map<String, LaneShare.Demand> elsewhere = Map.of();
    /** How far past a job's turn, in counter units, another replica may still serve its own lanes ({@link HoldBack}). */
    private long slack;

    ExpectedDemand(TenantLanes lanes) {
        this.lanes = lanes;
    }

    /** Records that {@code job} asked at this door and was refused. */
    void asked(Job job, long nowMs) {
        demand.asked(job.tenant(), job.priority(), job.tokens(), nowMs);
    }

    /**
     * The other replicas' demand for this budget (empty when alone or not shared), and the slack
     * of the hold that orders their lanes against this replica's ({@link HoldBack#slack()}).
     */
    void elsewhere(Map<String, LaneShare.Demand> demandElsewhere, long holdSlack) {
        this.elsewhere = Map.copyOf(demandElsewhere);
        this.slack = Math.max(0, holdSlack);
    }

    /**
     * This door's demand, per tenant, for the other replicas' doors: every tenant refused here in
     * the span or with work queued here, and where that demand starts in counter order.
     */
    List<LaneShare.Demand> here(long nowMs) {
        Map<String, LaneShare.Demand> out = new LinkedHashMap<>();
        JobClass served = lanes.servedClass();
        demand.forEach(
                nowMs,
                (tenant, priority, tokens, requests) -> out.put(
                        tenant,
                        new LaneShare.Demand(
                                tenant,
                                priority,
                                lanes.queuedTokens(tenant),
                                tokens,
                                requests,
                                lanes.headTagOf(tenant),
                                lanes.queuedJobs(tenant),
                                dueIn(tenant, served, nowMs))));
        lanes.waitingLanes((tenant, priority) -> out.computeIfAbsent(
                tenant,
                t -> new LaneShare.Demand(
                        t,
                        priority,
                        lanes.queuedTokens(t),
                        0,
                        0,
                        lanes.headTagOf(t),
                        lanes.queuedJobs(t),
                        dueIn(t, served, nowMs))));
        return new ArrayList<>(out.values());
    }

    /**
     * How long from {@code nowMs} until the start promised to {@code tenant}'s next job here of the class
     * served now (saturating): a batch job waits behind interactive work here whatever the other replicas do.
     */
    private long dueIn(String tenant, JobClass served, long nowMs) {
        long at = lanes.nextPromisedStart(tenant, served);
        if (at == Long.MAX_VALUE) return LaneShare.Demand.NOT_DUE;
        long in = at - nowMs;
        // Overflowed (clocks at the ends of the range): the sign tells which end.
        if (((at ^ nowMs) & (at ^ in)) < 0) return at < nowMs ? Long.MIN_VALUE : LaneShare.Demand.NOT_DUE - 1;
        return Math.min(in, LaneShare.Demand.NOT_DUE - 1);
    }

    /**
     * {@code ahead}, plus each other tenant's work not in this queue (queued on other replicas,
     * and refused in the span, here and there), as far as that work would come before the job
     * in counter order were it queued now.
     */
    WorkAhead ahead(Job job, WorkAhead ahead, long nowMs) {
        return ahead(job, lanes.tagOf(job), ahead, nowMs, true);
    }

    /**
     * The same for a job whose turn comes at counter {@code turn} (a queued one's, in service
     * order); without {@code asked}, only the work other replicas have queued counts.
     */
    WorkAhead ahead(Job job, long turn, WorkAhead ahead, long nowMs, boolean asked) {
        Map<String, LaneShare.Demand> all = new HashMap<>(elsewhere);
        for (LaneShare.Demand local : here(nowMs)) all.merge(local.tenant(), local, LaneShare.Demand::plus);
        int moreJobs = 0;
        long moreTokens = 0;
        for (LaneShare.Demand d : all.values()) {
            LaneShare.Demand there = elsewhere.get(d.tenant());
            long queuedThere = there == null ? 0 : there.queuedTokens();
            if (d.tenant().equals(job.tenant())) {
                // Its own lane's jobs queued on other replicas joined before it and draw on the same budget.
                if (queuedThere > 0) {
                    long perJob = Math.max(1, job.tokens());
                    long calls = there.queuedRequests() > 0
                            ? there.queuedRequests()
                            : (queuedThere + perJob - 1) / perJob; // a replica that does not say: its size
                    moreJobs = (int) Math.min(Integer.MAX_VALUE, moreJobs + calls);
                    moreTokens = LaneShare.clamp(moreTokens + queuedThere);
                }
                continue;
            }
            long notHere = queuedThere
                    + (asked ? d.askedTokens() : 0); // queued elsewhere, and refused here or there in the span
            if (notHere <= 0) continue;
            long tail = lanes.tailTagOf(d.tenant());
            // A tenant with no lane here stands where the doors that have one say it starts: this door's own guess
            // for a newcomer (its floor less the credit) would count all of its demand ahead of every job here.
            if (!lanes.hasLane(d.tenant()) && there != null && there.head() != LaneShare.Demand.UNKNOWN_HEAD) {
                tail = there.head();
            }
            // What another replica has queued goes ahead up to the hold's slack past the job's turn: that replica holds
            // its lanes back only once they are that far ahead of this one's. Counted to the turn alone, both doors
            // promised the room at a minute's turn to their own lines and the last pages of one were dropped there.
            long queuedBefore = Math.min(queuedThere, reach(LaneShare.clamp(turn + slack), tail, d.priority()));
            long askedBefore =
                    asked ? Math.min(d.askedTokens(), Math.max(0, reach(turn, tail, d.priority()) - queuedThere)) : 0;
            long before = queuedBefore + askedBefore;
            if (before <= 0) continue;
            // Calls as well as tokens, for the slots' drain: queued there and refused, as many as they were (one
            // call of all of it where nobody says: a replica of an earlier version).
            long calls = (there == null ? 0 : there.queuedRequests()) + (asked ? d.askedRequests() : 0);
            long meanTokens = Math.max(1, calls == 0 ? before : notHere / calls);
            moreJobs = (int) Math.min(Integer.MAX_VALUE, moreJobs + (before + meanTokens - 1) / meanTokens);
            moreTokens = LaneShare.clamp(moreTokens + before);
        }
        return moreTokens == 0 ? ahead : ahead.plus(moreJobs, moreTokens);
    }

    /** How much of a tenant's demand starting at counter {@code tail} comes before counter {@code turn}. */
    private static long reach(long turn, long tail, int priority) {
        return turn <= tail ? 0 : (turn - tail) / priority;
    }
}
