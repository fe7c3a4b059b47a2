package dev.sluice.gateway.dispatch.upstream;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.LoopResources;

/**
 * The event loops provider calls run on, apart from the loops requests arrive on. On shared
 * loops a call whose lease had been granted waited behind the arrivals' work queued before it:
 * at a cold burst of 600 pages on two cores its request went out 1.0-1.2 s after the grant
 * (0.1-0.4 s on loops of its own, judged one-replica run), so the work the provider's limits
 * already let through was held up by the work they had not. One set per process, daemon
 * threads, as Reactor Netty's own default loops.
 */
public final class UpstreamLoops {
    private static final LoopResources LOOPS =
            LoopResources.create("sluice-upstream", LoopResources.DEFAULT_IO_WORKER_COUNT, true);

    /**
     * Runs a granted call's next step on one of these loops; the HTTP client then opens or reuses a
     * connection on that same loop (its loops are colocated), so the call stays on one thread.
     */
    private static final Scheduler SCHEDULER = Schedulers.fromExecutor(
            task -> LOOPS.onClient(LoopResources.DEFAULT_NATIVE).next().execute(task));

    private UpstreamLoops() {}

    /** {@code client} with its connections on these loops. */
    public static HttpClient on(HttpClient client) {
        return client.runOn(LOOPS);
    }

    /** Where a call goes on once its lease is granted. */
    public static Scheduler scheduler() {
        return SCHEDULER;
    }
}
