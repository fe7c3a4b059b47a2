package dev.sluice.gateway.simulation;

import dev.sluice.gateway.config.Tier;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The tenants' side: each tenant behaves as its group says (books of pages sent at once with
 * think time between, a Poisson stream, bursts), tries a refused request again as its client
 * does (after Retry-After, after its own pause whatever the gateway said, or never), and hangs up
 * on a share of its requests if they are not answered within its patience. Every try picks a
 * replica at random, as a load balancer would. Arrivals stop at the end of the run; a retry that
 * would start after it is given up.
 */
final class Clients {
    private final Simulation sim;
    private final World world;

    Clients(Simulation sim) {
        this.sim = sim;
        this.world = sim.world;
    }

    void start() {
        for (World.Group g : world.groups()) {
            for (String t : g.tenants()) {
                Tenant tenant = new Tenant(t, g, sim.tierOf(g.tier()), sim.random.split());
                switch (g.behaviour().kind()) {
                    case BOOK ->
                        later(
                                World.between(
                                        tenant.random,
                                        0,
                                        g.behaviour().startWithinMs() >= 0
                                                ? g.behaviour().startWithinMs()
                                                : 5_000),
                                tenant::book);
                    case POISSON ->
                        later(tenant.nextGap(60_000.0 / g.behaviour().perMinute()), tenant::poisson);
                    case BURSTS ->
                        later(World.between(tenant.random, 0, g.behaviour().gapMs()), tenant::burst);
                }
            }
        }
    }

    private void later(long ms, Runnable task) {
        sim.time.schedule(task, Math.max(0, ms), TimeUnit.MILLISECONDS);
    }

    /** When each replica's edge is free to hand its door the next call ({@link World.Gateway#edgeMsPerCall}). */
    private long[] edgeFreeAtMs;

    /** How long a call sent now to {@code replica} waits at its edge, in arrival order. */
    private Duration atTheEdge(int replica) {
        long per = world.gateway().edgeMsPerCall();
        if (per <= 0) return Duration.ZERO;
        if (edgeFreeAtMs == null) edgeFreeAtMs = new long[sim.replicas.size()];
        long at = Math.max(sim.now(), edgeFreeAtMs[replica]);
        edgeFreeAtMs[replica] = at + per;
        return Duration.ofMillis(at - sim.now());
    }

    /** The shortest time from one book's start to the next's, for a closed-loop client ({@link Tenant#book}). */
    static final long MIN_BOOK_MS = 1_000;

    private boolean open() {
        return sim.now() < world.runMs();
    }

    /** One page: a request the tenant wants answered, tried until answered, given up or hung up on. */
    private static final class Page {
        final int n;
        final long prompt;
        final long maxTokens;
        final boolean batch;
        final boolean noDowngrade;
        int tries;
        Runnable done;

        Page(int n, long prompt, long maxTokens, boolean batch, boolean noDowngrade) {
            this.n = n;
            this.prompt = prompt;
            this.maxTokens = maxTokens;
            this.batch = batch;
            this.noDowngrade = noDowngrade;
        }
    }

    private final class Tenant {
        final String id;
        final World.Group group;
        final Tier tier;
        final SplittableRandom random;
        int pages;
        int outstanding; // a book's pages not yet done

        Tenant(String id, World.Group group, Tier tier, SplittableRandom random) {
            this.id = id;
            this.group = group;
            this.tier = tier;
            this.random = random;
        }

        long nextGap(double meanMs) {
            return Math.max(1, Math.round(-meanMs * Math.log(1 - random.nextDouble())));
        }

        void book() {
            if (!open()) return;
            int size = group.behaviour().size();
            outstanding = size;
            long startedAt = sim.now();
            for (int i = 0; i < size; i++) {
                Page p = page();
                p.done = () -> {
                    if (--outstanding > 0 || !open()) return;
                    // The next book after the gap, and no sooner than a second after this one began: a book
                    // refused whole in no simulated time (its quota and the door answering at once) with a gap
                    // of 0 sent the next one at the same instant, for ever (seed 1087: 3.3 million books at 441.9 s).
                    later(Math.max(group.behaviour().gapMs(), startedAt + MIN_BOOK_MS - sim.now()), this::book);
                };
                send(p);
            }
        }

        void poisson() {
            if (!open()) return;
            Page p = page();
            p.done = () -> {};
            send(p);
            later(nextGap(60_000.0 / group.behaviour().perMinute()), this::poisson);
        }

        void burst() {
            if (!open()) return;
            for (int i = 0; i < group.behaviour().size(); i++) {
                Page p = page();
                p.done = () -> {};
                send(p);
            }
            later(nextGap(group.behaviour().gapMs()), this::burst);
        }

        Page page() {
            long prompt = World.logBetween(random, group.promptMin(), group.promptMax());
            long max = group.maxTokens() == 0 ? tier.defaultMaxTokens() : group.maxTokens();
            return new Page(
                    ++pages,
                    prompt,
                    max,
                    random.nextDouble() < group.batchShare(),
                    random.nextDouble() < group.noDowngradeShare());
        }

        /** Its replica when the world pins tenants: the tenants in order, split into equal runs ({@code JudgedRun}'s 1-3, 4-6). */
        int pinned() {
            List<String> all = world.tenants();
            return all.indexOf(id) * sim.replicas.size() / all.size();
        }

        void send(Page p) {
            p.tries++;
            int replica = world.gateway().pinTenants() ? pinned() : random.nextInt(sim.replicas.size());
            Attempt a = new Attempt(
                    id + "-" + p.n + "." + p.tries,
                    id,
                    group.index(),
                    replica,
                    p.prompt,
                    p.maxTokens,
                    p.batch,
                    p.noDowngrade,
                    group.maxWaitMs(),
                    sim.now());
            sim.attempts.add(a);
            sim.trace.event(a.sentAtMs, "send", a.id, replica, p.prompt, p.maxTokens, p.batch ? 1 : 0);
            Exchange x = new Exchange(a, tier, World.MODEL);
            x.delivered = () -> {
                a.answeredAtMs = sim.now();
                sim.trace.event(a.answeredAtMs, "answered", a.id, a.status, a.retryAfterMs);
                later(0, () -> answered(p, a));
            };
            Mono<Void> handled = sim.replicas.get(replica).handle(x);
            Duration edge = atTheEdge(replica);
            if (!edge.isZero()) handled = handled.delaySubscription(edge, sim.time);
            Disposable call = handled.doFinally(signal -> a.ended = true).subscribe(v -> {}, e -> sim.escaped(a, e));
            if (group.cancelShare() > 0 && random.nextDouble() < group.cancelShare()) {
                later(World.between(random, 100, group.patienceMs()), () -> {
                    if (a.answeredAtMs >= 0 || a.ended) return;
                    a.cancelled = true;
                    a.cancelledInLine = a.inLine;
                    sim.trace.event(sim.now(), "hang-up", a.id, a.inLine ? 1 : 0);
                    call.dispose();
                    p.done.run();
                });
            }
        }

        /** The answer reached the client: done, or tried again as the client's policy says. */
        void answered(Page p, Attempt a) {
            boolean retryable = a.status == 429 || a.status == 503 || a.status == 502 || a.status == 504;
            World.Retry retry = group.retry();
            if (!retryable || retry.kind() == World.RetryKind.NONE || p.tries > retry.maxRetries()) {
                p.done.run();
                return;
            }
            long wait = switch (retry.kind()) {
                case HONOUR -> a.retryAfterMs > 0 ? a.retryAfterMs : 1_000;
                case HONOUR_SECONDS -> a.retryAfterMs > 0 ? (a.retryAfterMs + 999) / 1_000 * 1_000 : 1_000;
                default -> retry.retryDelayMs();
            };
            if (sim.now() + wait >= world.runMs()) {
                p.done.run(); // the run is over: the client gives up
                return;
            }
            later(wait, () -> send(p));
        }
    }
}
