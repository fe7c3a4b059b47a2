package dev.sluice.gateway.dispatch.queue;

import dev.sluice.gateway.dispatch.budget.Acquire;
import dev.sluice.gateway.dispatch.budget.BudgetDecision;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.budget.ProviderBudget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The dispatch loop in simulated time: a {@link FairQueue} drained into a real
 * {@link ProviderBudget} (rolling window, leased slots), calls that last {@code callMs}.
 * Every 100 ms: finished calls release their slots, then jobs go while the queue hands them out.
 */
final class DispatchSimulation {
    static final long TICK_MS = 100;

    record Sent(Job job, long atMs) {}

    final FairQueue queue;
    final BudgetLimits limits;
    final long callMs;
    final ProviderBudget budget = new ProviderBudget();
    final List<Sent> sent = new ArrayList<>();
    final Map<String, Long> tokensByTenant = new HashMap<>();
    private final PriorityQueue<long[]> running = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
    private final Map<Long, String> leaseOf = new HashMap<>();
    private long nextLease;
    long nowMs;
    long maxTokensUsed;
    long maxInFlight;

    DispatchSimulation(FairQueue queue, BudgetLimits limits, long callMs) {
        this.queue = queue;
        this.limits = limits;
        this.callMs = callMs;
    }

    /** Runs until {@code untilMs}, or until the queue is empty when {@code untilMs} is negative. */
    void runUntil(long untilMs) {
        while (untilMs < 0 ? queue.depth() > 0 : nowMs < untilMs) {
            step();
            nowMs += TICK_MS;
        }
    }

    void step() {
        while (!running.isEmpty() && running.peek()[0] <= nowMs) {
            budget.release(leaseOf.remove(running.poll()[1]), nowMs);
        }
        queue.expire(nowMs);
        while (true) {
            BudgetView view = BudgetView.of(budget.snapshot(limits, nowMs));
            var job = queue.next(view);
            if (job.isEmpty()) break;
            long id = nextLease++;
            BudgetDecision d = budget.tryAcquire(limits, Acquire.of(job.get().tokens(), "l" + id), nowMs);
            if (!d.admitted()) throw new AssertionError("the queue handed out a job the budget refused: " + d);
            leaseOf.put(id, "l" + id);
            running.add(new long[] {nowMs + callMs, id});
            sent.add(new Sent(job.get(), nowMs));
            tokensByTenant.merge(job.get().tenant(), job.get().tokens(), Long::sum);
            BudgetSnapshot s = d.snapshot();
            maxTokensUsed = Math.max(maxTokensUsed, s.usedTokens());
            maxInFlight = Math.max(maxInFlight, s.inFlight());
        }
    }

    /** Tokens sent per tenant from {@code fromMs} up to and including {@code tenant}'s last send, in send order. */
    Map<String, Long> tokensUntilDone(long fromMs, String tenant) {
        int last = -1;
        for (int i = 0; i < sent.size(); i++) if (sent.get(i).job().tenant().equals(tenant)) last = i;
        Map<String, Long> out = new HashMap<>();
        for (int i = 0; i <= last; i++) {
            Sent s = sent.get(i);
            if (s.atMs() >= fromMs) out.merge(s.job().tenant(), s.job().tokens(), Long::sum);
        }
        return out;
    }

    long lastSendOf(String tenant) {
        long last = -1;
        for (Sent s : sent) if (s.job().tenant().equals(tenant)) last = s.atMs();
        return last;
    }

    /** Jain's fairness index of the values: 1 when all equal, 1/n when one takes all. */
    static double jain(double... x) {
        double sum = 0;
        double squares = 0;
        for (double v : x) {
            sum += v;
            squares += v * v;
        }
        return sum * sum / (x.length * squares);
    }
}
