package dev.sluice.gateway.dispatch.queue;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.support.Periodic;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * This replica's side of fairness across replicas. Every {@code every}, for
 * each provider budget with lanes to report, one {@link LaneShare#publish} call: the service
 * its lanes got since the last tick goes into the tenants' shared counters, and the view that
 * comes back rebases the lanes' counters and sets the {@link HoldBack} its dispatcher applies.
 * A budget with nothing waiting and nothing served makes no call; a budget that just drained
 * makes one more, so the others stop holding back for it at once. A call that fails or times
 * out ({@code storeTimeout}) holds nothing back and its service is reported with the next.
 *
 * <p>Each door also tells the others its demand (what each tenant has queued here and was
 * refused here in the door's span), and counts theirs ahead of whoever it admits ({@link Door}): a crowd split
 * between replicas is promised one horizon of the shared budget, not one per replica. The doors'
 * own lines stay per replica; a view a tick old is what a door counts with.
 */
public final class LaneSharing implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(LaneSharing.class);

    /** One budget's fair queue as this replica shares it (its dispatcher): what a tick takes from it and gives back. */
    public interface Lanes {
        /** The budget, {@code provider:model}. */
        String key();

        /** The limits in force now. */
        BudgetLimits limits();

        /** The queue's credit, for the shared counters' lift. */
        long credit();

        /** Its lanes' service and its door's demand to report to the other replicas (taken on its loop). */
        Mono<Share> takeReports();

        /**
         * The fleet's view: counters rebased, the others' demand to the door, the hold set.
         * {@code othersSeenUpToMs}: what the other replicas admitted up to then is in the view (their
         * reports come at their own ticks: two ticks back is taken as certain).
         */
        void shared(LaneShare.View view, HoldBack hold, long othersSeenUpToMs);

        /** The report did not reach the fleet: its service goes in the next one, and nothing is held back meanwhile. */
        void notShared(List<LaneShare.Report> reports);
    }

    /** What a budget tells the other replicas at a tick: its lanes' service and its door's demand. */
    public record Share(List<LaneShare.Report> lanes, List<LaneShare.Demand> demand) {}

    private final Supplier<? extends Collection<? extends Lanes>> dispatchers;
    private final LaneShare share;
    private final BooleanSupplier storeUp;
    private final Duration every;
    private final long ttlMs;
    private final Duration storeTimeout;
    private final Clock clock;
    private final String replica = UUID.randomUUID().toString();
    /** Budgets whose last report had a lane waiting: they report once more when they drain. */
    private final Map<String, Boolean> reportedWaiting = new ConcurrentHashMap<>();

    private final Periodic ticking = new Periodic("fair-queue sharing", this::tick);
    private final AtomicLong calls = new AtomicLong();
    private volatile boolean running;

    /**
     * @param dispatchers every budget's dispatcher on this replica
     * @param share       null: this replica is alone (no store shared), nothing is shared and no call made
     * @param storeUp     whether the store answers; while it does not, no call is made and nothing is held back
     */
    public LaneSharing(
            Supplier<? extends Collection<? extends Lanes>> dispatchers,
            LaneShare share,
            BooleanSupplier storeUp,
            Duration every,
            Duration ttl,
            Duration storeTimeout,
            Clock clock) {
        this.dispatchers = dispatchers;
        this.share = share;
        this.storeUp = storeUp;
        this.every = every;
        this.ttlMs = ttl.toMillis();
        this.storeTimeout = storeTimeout;
        this.clock = clock;
    }

    @Override
    public void start() {
        if (share != null) ticking.start(every, every);
        running = true;
    }

    @Override
    public void stop() {
        ticking.stop();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Share calls made so far: the cost in store round trips. */
    public long calls() {
        return calls.get();
    }

    /** One tick: every budget's share, one after the other. */
    public Mono<Void> tick() {
        List<Lanes> all = List.copyOf(dispatchers.get());
        return Flux.fromIterable(all).concatMap(this::tick).then();
    }

    private Mono<Void> tick(Lanes d) {
        if (!storeUp.getAsBoolean()) {
            d.notShared(List.of()); // Redis down: each replica on its own share of the limits, fair among its own
            return Mono.empty();
        }
        return d.takeReports().flatMap(taken -> {
            List<LaneShare.Report> reports = taken.lanes();
            boolean waiting = reports.stream().anyMatch(LaneShare.Report::waiting)
                    || !taken.demand().isEmpty();
            boolean was = reportedWaiting.getOrDefault(d.key(), false);
            if (reports.isEmpty() && taken.demand().isEmpty() && !was) return Mono.empty();
            long now = clock.millis();
            long slack = HoldBack.slackFor(d.limits().tokensPerMinute());
            calls.incrementAndGet();
            return Mono.defer(() -> share.publish(
                            d.key(), replica, now, reports, taken.demand(), new LaneShare.Terms(ttlMs, d.credit())))
                    .timeout(storeTimeout)
                    .doOnNext(view -> {
                        reportedWaiting.put(d.key(), waiting);
                        // The others report at their own ticks, which a loaded replica may run late: what they admitted
                        // is counted in the view from two ticks back, not one.
                        d.shared(view, HoldBack.of(view.othersLowest(), now, slack, ttlMs), now - 2 * every.toMillis());
                    })
                    .onErrorResume(e -> {
                        log.debug("Fair queue of {} not shared: {}", d.key(), e.toString());
                        d.notShared(reports);
                        return Mono.empty();
                    })
                    .then();
        });
    }
}
