package dev.sluice.gateway.dispatch.queue;

import java.util.function.BooleanSupplier;
import java.util.function.ObjIntConsumer;

/**
 * Each tenant's lane in one fair queue, read from outside it: whether a tenant has a lane, where
 * its turn starts and ends in counter order, what it has queued, who waits. The door weighs the
 * demand it cannot see against these ({@link ExpectedDemand}) and tells the other replicas' doors
 * where each tenant's demand starts. It changes no lane (a lane's start advances the floor, as
 * every reading of it does: {@link ServiceOrder}); single-threaded like its {@link FairQueue}.
 */
public final class TenantLanes {
    private final Lanes lanes;
    private final ServiceOrder order;
    /** Whether any interactive job waits in the queue (its own count). */
    private final BooleanSupplier interactiveWaits;

    TenantLanes(Lanes lanes, ServiceOrder order, BooleanSupplier interactiveWaits) {
        this.lanes = lanes;
        this.order = order;
        this.interactiveWaits = interactiveWaits;
    }

    /** The counter at which {@code candidate} would be served were it enqueued now. */
    public long tagOf(Job candidate) {
        return order.tagOf(candidate);
    }

    /** The counter at which {@code tenant}'s lane starts: before what it has queued (a newcomer's start when it has none). */
    public long headTagOf(String tenant) {
        return order.headTagOf(tenant);
    }

    /** The counter at which {@code tenant}'s next call would start behind what it has queued. */
    public long tailTagOf(String tenant) {
        return order.tailTagOf(tenant);
    }

    /** Whether {@code tenant} has a lane here: work waiting, or a counter still remembered. */
    public boolean hasLane(String tenant) {
        return lanes.get(tenant) != null;
    }

    /** Calls {@code each} with every tenant that has work waiting, and its priority, oldest lane first. */
    public void waitingLanes(ObjIntConsumer<String> each) {
        lanes.all().forEach((tenant, lane) -> {
            if (lane.waiting()) each.accept(tenant, lane.priority);
        });
    }

    /** Tokens {@code tenant} has queued. */
    public long queuedTokens(String tenant) {
        Lanes.Lane lane = lanes.get(tenant);
        if (lane == null) return 0;
        long sum = 0;
        for (Job j : lane.interactive) sum += j.tokens();
        for (Job j : lane.batch) sum += j.tokens();
        return sum;
    }

    /** Calls {@code tenant} has queued. */
    public int queuedJobs(String tenant) {
        Lanes.Lane lane = lanes.get(tenant);
        return lane == null ? 0 : lane.size();
    }

    /** The class served now: interactive while any interactive job waits (batch yields to it). */
    public JobClass servedClass() {
        return interactiveWaits.getAsBoolean() ? JobClass.INTERACTIVE : JobClass.BATCH;
    }

    /**
     * The start the door promised {@code tenant}'s next job of class {@code c}: the one its lane sends
     * next while that class is served; {@link Long#MAX_VALUE} when it has none.
     */
    public long nextPromisedStart(String tenant, JobClass c) {
        Lanes.Lane lane = lanes.get(tenant);
        Job head = lane == null ? null : lane.of(c).peekFirst();
        return head == null ? Long.MAX_VALUE : lanes.promisedStart(head);
    }

    /** Tenants with work waiting. */
    public int lanesWaiting() {
        int n = 0;
        for (Lanes.Lane lane : lanes.all().values()) if (lane.waiting()) n++;
        return n;
    }
}
