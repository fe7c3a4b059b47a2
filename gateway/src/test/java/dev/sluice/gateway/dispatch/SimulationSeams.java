package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSeams;
import dev.sluice.gateway.dispatch.budget.ReplicaLeases;
import dev.sluice.gateway.dispatch.queue.Door;
import dev.sluice.gateway.dispatch.queue.DoorDecision;
import dev.sluice.gateway.dispatch.queue.GatewayBusyException;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.upstream.CallFailures;
import dev.sluice.gateway.dispatch.upstream.UpstreamAnswer;
import dev.sluice.gateway.store.DecisionBudget;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * What the whole-system simulation ({@code dev.sluice.gateway.simulation}) reads of the dispatch
 * package that is not public: package-private members (reached from this test class, in the same
 * package, so main code needs no accessor), and the door's estimate for a job, which only
 * {@link ProviderDispatcher}'s private door and capacity know. Those two are read by reflection, so
 * the main code carries nothing for the simulation; a rename there fails here with its name.
 */
public final class SimulationSeams {
    private static final Field DOOR = field("door");
    private static final Method CAPACITY = method("capacity");

    private SimulationSeams() {}

    /**
     * The line's state as its queue holds it, read only (for the trace): the hold-back's bound and,
     * per lane, its counter, jobs waiting and its head's turn. "tenant:served/waiting/headTurn".
     */
    public static String lineState(ProviderDispatcher d) {
        try {
            Field q = ProviderDispatcher.class.getDeclaredField("queue");
            q.setAccessible(true);
            dev.sluice.gateway.dispatch.queue.FairQueue queue = (dev.sluice.gateway.dispatch.queue.FairQueue) q.get(d);
            Field tallyF = queue.getClass().getDeclaredField("tally");
            tallyF.setAccessible(true);
            Object tally = tallyF.get(queue);
            Field hold = tally.getClass().getDeclaredField("holdAbove");
            hold.setAccessible(true);
            Field lanesF = queue.getClass().getDeclaredField("lanes");
            lanesF.setAccessible(true);
            Object lanes = lanesF.get(queue);
            Field all = lanes.getClass().getDeclaredField("lanes");
            all.setAccessible(true);
            StringBuilder s = new StringBuilder("hold=").append(hold.get(tally));
            java.util.Map<String, Long> heads = new java.util.HashMap<>();
            for (var t : queue.turns()) heads.putIfAbsent(t.job().tenant(), t.tag());
            for (var e : ((java.util.Map<?, ?>) all.get(lanes)).entrySet()) {
                Object lane = e.getValue();
                Field served = lane.getClass().getDeclaredField("served");
                served.setAccessible(true);
                java.lang.reflect.Method size = lane.getClass().getDeclaredMethod("size");
                size.setAccessible(true);
                s.append(' ')
                        .append(e.getKey())
                        .append(':')
                        .append(served.get(lane))
                        .append('/')
                        .append(size.invoke(lane))
                        .append('/')
                        .append(heads.getOrDefault((String) e.getKey(), -1L));
            }
            return s.toString();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The limits the dispatcher charges by now (configured, with its adaptive in-flight cap), as DispatchFilter reads them. */
    public static BudgetLimits limits(ProviderDispatcher d) {
        return d.limits();
    }

    /** Jobs waiting in the dispatcher's line. */
    public static int depth(ProviderDispatcher d) {
        return d.depth();
    }

    /** How long past its deadline a job may still be sent ({@link Pump#DISPATCH_GRACE_MS}). */
    public static long dispatchGraceMs() {
        return Pump.DISPATCH_GRACE_MS;
    }

    /** A 503 without retry-after is tried again after this ({@link CallWithFailover#DEFAULT_OVERLOAD_WAIT_MS}). */
    public static long defaultOverloadWaitMs() {
        return CallWithFailover.DEFAULT_OVERLOAD_WAIT_MS;
    }

    /** See {@link UpstreamAnswer#countedBy}. */
    public static long countedBy(long headersAtMs, long processingMs, boolean stream) {
        return UpstreamAnswer.countedBy(headersAtMs, processingMs, stream);
    }

    /** See {@link CallFailures#neverConnected}. */
    public static boolean neverConnected(Throwable e) {
        return CallFailures.neverConnected(e);
    }

    /** The dispatch stage's refusals, with their texts and figures. */
    public static GatewayBusyException providersFailing(long retryAfterMs) {
        return GatewayBusyException.providersFailing(retryAfterMs);
    }

    public static GatewayBusyException overloadedPastMaxWait(long waitMs, long retryAfterMs) {
        return GatewayBusyException.overloadedPastMaxWait(waitMs, retryAfterMs);
    }

    public static GatewayBusyException pushedBackEveryTime(int attempts, long retryAfterMs) {
        return GatewayBusyException.pushedBackEveryTime(attempts, retryAfterMs);
    }

    /** Slots this replica's slice of {@code key} holds in the shared budget; 0 without a slice. */
    public static int sliceSlotsHeld(ReplicaLeases leases, String key) {
        return BudgetSeams.sliceSlotsHeld(leases, key);
    }

    /** {@link RouteChoice#seen}: the door's first look at each budget of {@code route}, as {@code RouteChoice.enter} takes it. */
    public static Mono<Void> firstLook(List<ProviderDispatcher.Candidate> route) {
        return RouteChoice.seen(route, DecisionBudget.UNLIMITED);
    }

    /**
     * What the door of {@code d} would answer for {@code job} now, as {@link ProviderDispatcher}'s
     * route choice asks it: the same job, the same capacity (the budget last seen, the circuit as a
     * pause), the same wait. On the dispatch loop only, right before the request is placed there.
     * The door only reads the queue (its monotone floor aside, which any read sets the same).
     */
    public static DoorDecision doorFor(ProviderDispatcher d, Job job, long maxWaitMs) {
        try {
            Door door = (Door) DOOR.get(d);
            Door.Capacity capacity = (Door.Capacity) CAPACITY.invoke(d);
            return door.admit(job, capacity, maxWaitMs);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the simulation could not ask the door of " + d.key(), e);
        }
    }

    private static Field field(String name) {
        try {
            Field f = ProviderDispatcher.class.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException(
                    "ProviderDispatcher has no field " + name + ": the simulation's door seam needs it", e);
        }
    }

    private static Method method(String name) {
        try {
            Method m = ProviderDispatcher.class.getDeclaredMethod(name);
            m.setAccessible(true);
            return m;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(
                    "ProviderDispatcher has no method " + name + "(): the simulation's door seam needs it", e);
        }
    }
}
