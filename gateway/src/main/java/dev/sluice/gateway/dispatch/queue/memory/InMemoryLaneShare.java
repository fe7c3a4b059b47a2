package dev.sluice.gateway.dispatch.queue.memory;

import dev.sluice.gateway.dispatch.queue.LaneShare;
import dev.sluice.gateway.dispatch.queue.LaneShare.Demand;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import reactor.core.publisher.Mono;

/**
 * The Java twin of {@code lane_share.lua}, for dispatchers that share one process (and the
 * contract suite). A single gateway does not use it: with no other replica there is nothing to
 * share, so its fair queue makes no share calls at all.
 */
public final class InMemoryLaneShare implements LaneShare {
    private record Tenant(long counter, long seenWaitingMs) {}

    private record Replica(long seenMs, long lowest) {}

    private record DemandAt(long seenMs, List<Demand> demand) {}

    private static final class Budget {
        long floor;
        final Map<String, Tenant> tenants = new HashMap<>();
        final Map<String, Replica> replicas = new HashMap<>();
        final Map<String, DemandAt> demand = new HashMap<>();
    }

    private final Map<String, Budget> budgets = new HashMap<>();

    @Override
    public Mono<View> publish(
            String key, String replica, long nowMs, List<Report> lanes, List<Demand> demand, Terms terms) {
        return Mono.fromSupplier(() -> {
            synchronized (budgets) {
                return publish(budgets.computeIfAbsent(key, k -> new Budget()), replica, nowMs, lanes, demand, terms);
            }
        });
    }

    private static View publish(
            Budget b, String replica, long nowMs, List<Report> lanes, List<Demand> demand, Terms terms) {
        long fresh = nowMs - terms.ttlMs();
        b.demand.values().removeIf(d -> d.seenMs() < fresh);
        List<List<Demand>> others = new ArrayList<>();
        b.demand.forEach((r, d) -> {
            if (!r.equals(replica)) others.add(d.demand());
        });
        if (demand.isEmpty()) b.demand.remove(replica);
        else b.demand.put(replica, new DemandAt(nowMs, List.copyOf(demand)));
        Map<String, Demand> elsewhere = LaneShare.sum(others);
        long start = LaneShare.clamp(b.floor - terms.credit());
        b.replicas.values().removeIf(r -> r.seenMs() < fresh);
        long othersLowest = Long.MAX_VALUE;
        for (Map.Entry<String, Replica> r : b.replicas.entrySet()) {
            if (!r.getKey().equals(replica))
                othersLowest = Math.min(othersLowest, r.getValue().lowest());
        }
        // Tenants no one reported waiting within the TTL, not ahead of where they would start again: forgetting them
        // changes nothing.
        b.tenants.values().removeIf(t -> t.seenWaitingMs() < fresh && t.counter() <= start);
        Map<String, Long> counters = new HashMap<>();
        long mine = Long.MAX_VALUE;
        for (Report lane : lanes) {
            Tenant was = b.tenants.get(lane.tenant());
            long counter = was == null ? start : was.counter();
            boolean wasWaiting = was != null && was.seenWaitingMs() >= fresh;
            if (lane.waiting() && !wasWaiting) counter = Math.max(counter, start);
            counter = LaneShare.clamp(counter + LaneShare.clamp(lane.served()));
            long seen = lane.waiting() ? nowMs : was == null ? Long.MIN_VALUE : was.seenWaitingMs();
            b.tenants.put(lane.tenant(), new Tenant(counter, seen));
            counters.put(lane.tenant(), counter);
            if (lane.waiting()) mine = Math.min(mine, counter);
        }
        if (mine == Long.MAX_VALUE) b.replicas.remove(replica);
        else b.replicas.put(replica, new Replica(nowMs, mine));
        long level = Math.min(mine, othersLowest);
        if (level != Long.MAX_VALUE) b.floor = Math.max(b.floor, level);
        return new View(
                othersLowest == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(othersLowest),
                counters,
                elsewhere);
    }
}
