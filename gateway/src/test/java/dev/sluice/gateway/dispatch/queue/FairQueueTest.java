package dev.sluice.gateway.dispatch.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Percentage.withPercentage;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FairQueueTest {
    static final long NEVER = Long.MAX_VALUE;
    /** Seed 000's provider: 1,500 requests and 300,000 tokens a minute, 200 in flight, calls of 2 s. */
    static final BudgetLimits SEED = new BudgetLimits(1500, 300_000, 200, 120_000);

    static final BudgetView ROOMY = new BudgetView(10_000_000, 0, 1_000_000, 0, 100_000, 0, false);

    final FairQueue queue = new FairQueue(100_000, 0.1);
    int ids;

    Job job(String tenant, int priority, JobClass c, long tokens) {
        return Job.of("j" + ++ids, tenant, priority, c, tokens, 0, NEVER);
    }

    void enqueue(String tenant, int priority, JobClass c, long tokens, int count) {
        for (int i = 0; i < count; i++)
            assertThat(queue.enqueue(job(tenant, priority, c, tokens))).isTrue();
    }

    List<String> drainTenants(int n) {
        return drain(n, Job::tenant);
    }

    /** The next {@code n} jobs the queue hands out with room for all, each read as {@code what}. */
    List<String> drain(int n, Function<Job, String> what) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(what.apply(queue.next(ROOMY).orElseThrow()));
        return out;
    }

    // --- fairness in tokens ---

    @Test
    void equalTenantsWithVeryDifferentDemandGetEqualTokenServiceWhileBothWait() {
        // a with big pages and ten times the work, b with small pages: tokens, not requests, are shared
        enqueue("a", 2, JobClass.INTERACTIVE, 1_200, 3_000);
        enqueue("b", 2, JobClass.INTERACTIVE, 400, 1_500);
        DispatchSimulation sim = new DispatchSimulation(queue, SEED, 2_000);
        sim.runUntil(-1);
        long bothUntil = sim.lastSendOf("b");
        Map<String, Long> served = sim.tokensUntilDone(0, "b");
        assertThat(bothUntil)
                .as("b waited minutes: the budget was the bottleneck")
                .isGreaterThan(120_000);
        assertThat(DispatchSimulation.jain(served.get("a"), served.get("b"))).isGreaterThanOrEqualTo(0.99);
        assertThat(served.get("a")).isCloseTo(served.get("b"), withPercentage(2));
    }

    @Test
    void aTenantWithTenBooksDoesNotDelayATenantWithOneBeyondItsShare() {
        enqueue("ten-books", 2, JobClass.INTERACTIVE, 800, 1_000);
        DispatchSimulation sim = new DispatchSimulation(queue, SEED, 2_000);
        sim.runUntil(1_000); // every slot taken by the ten books, 800 pages still queued
        long arrived = sim.nowMs;
        enqueue("one-book", 2, JobClass.INTERACTIVE, 800, 100);
        sim.runUntil(-1);
        long done = sim.lastSendOf("one-book");
        Map<String, Long> during = sim.tokensUntilDone(arrived, "one-book");
        // while it waited, the one book got half of everything sent (one page of slack)
        long total = during.values().stream().mapToLong(Long::longValue).sum();
        assertThat(during.get("one-book")).isEqualTo(80_000);
        assertThat(total).isLessThanOrEqualTo(2 * 80_000 + 800);
        // first come, first served would have put it behind the rest of the ten books
        assertThat(sim.lastSendOf("ten-books")).isGreaterThan(done + 60_000);
    }

    @Test
    void priorityWeightsSkewServiceAsDocumented() {
        enqueue("p1", 1, JobClass.INTERACTIVE, 800, 600);
        enqueue("p2", 2, JobClass.INTERACTIVE, 800, 600);
        enqueue("p3", 3, JobClass.INTERACTIVE, 800, 600);
        Map<String, Integer> served = new HashMap<>();
        for (int i = 0; i < 1_100; i++)
            served.merge(queue.next(ROOMY).orElseThrow().tenant(), 1, Integer::sum);
        // weights 1, 1/2, 1/3: shares 6/11, 3/11, 2/11 of 1100
        assertThat(served.get("p1")).isBetween(599, 600);
        assertThat(served.get("p2")).isBetween(299, 301);
        assertThat(served.get("p3")).isBetween(199, 201);
    }

    @Test
    void aLateTenantIsNeitherStarvedNorGivenABurstForItsIdleTime() {
        enqueue("a", 2, JobClass.INTERACTIVE, 100, 100);
        drainTenants(50);
        queue.advanceTo(Door.LONGEST_BURST_MS); // b comes after the burst a's pages went out in
        enqueue("b", 2, JobClass.INTERACTIVE, 100, 100);
        // b starts level with a: they alternate, b does not get 50 in a row
        List<String> order = drainTenants(10);
        assertThat(order.stream().filter("b"::equals).count()).isEqualTo(5);
    }

    @Test
    void theRealUsageCorrectsTheCounters() {
        enqueue("a", 1, JobClass.INTERACTIVE, 1_000, 3);
        enqueue("b", 1, JobClass.INTERACTIVE, 1_000, 3);
        assertThat(drainTenants(2)).containsExactly("a", "b");
        queue.reconcile("a", -900); // a's call used 100 tokens, not 1000
        assertThat(drainTenants(1)).containsExactly("a");
    }

    // --- interactive before batch, and the floor ---

    @Test
    void interactiveGoesBeforeBatchWhateverTheCounters() {
        enqueue("backfill", 1, JobClass.BATCH, 800, 10);
        enqueue("person", 3, JobClass.INTERACTIVE, 800, 2);
        assertThat(drainTenants(3)).containsExactly("person", "person", "backfill");
    }

    @Test
    void aBatchJobPastThePromisedStartGoesBeforeInteractiveWork() {
        // Promised a start within 60 s at 0; interactive work keeps coming. Until the start its door promised (less
        // the margin it kept, 4 s of a minute) batch yields; past it, batch goes first: yielding is not breaking
        // the door's word (the random worlds: batch promised 0 ms, overtaken until its minute was out).
        queue.enqueue(Job.of("batch", "backfill", 1, JobClass.BATCH, 800, 0, 60_000));
        queue.enqueue(Job.of("p1", "person", 1, JobClass.INTERACTIVE, 800, 0, NEVER));
        queue.advanceTo(50_000);
        assertThat(queue.next(ROOMY).orElseThrow().id()).isEqualTo("p1");
        queue.enqueue(Job.of("p2", "person", 1, JobClass.INTERACTIVE, 800, 50_000, NEVER));
        queue.advanceTo(60_000 - Door.marginMs(60_000));
        assertThat(queue.peek().orElseThrow().id()).isEqualTo("batch");
        assertThat(queue.next(ROOMY).orElseThrow().id()).isEqualTo("batch");
        assertThat(queue.next(ROOMY).orElseThrow().id()).isEqualTo("p2");
    }

    @Test
    void onlyTheBatchJobPastItsPromisedStartGoesBeforeInteractiveWork() {
        // "early" has the lower counter but its promise has time left: it still waits behind the person.
        queue.enqueue(Job.of("late0", "late", 1, JobClass.BATCH, 800, 0, NEVER));
        assertThat(queue.next(ROOMY).orElseThrow().id()).isEqualTo("late0"); // "late"'s counter is 800 up
        queue.enqueue(Job.of("late", "late", 1, JobClass.BATCH, 800, 0, 60_000));
        queue.enqueue(Job.of("early", "early", 1, JobClass.BATCH, 100, 0, 600_000));
        queue.enqueue(Job.of("p", "person", 1, JobClass.INTERACTIVE, 800, 0, NEVER));
        queue.advanceTo(59_000);
        assertThat(drain(3, Job::id)).containsExactly("late", "p", "early");
    }

    @Test
    void batchNeverTakesTheReservedFloorAndAPersonFindsRoomAtOnce() {
        FairQueue q = new FairQueue(100_000, 0.1);
        for (int i = 0; i < 2_000; i++) q.enqueue(Job.of("b" + i, "backfill", 1, JobClass.BATCH, 800, 0, NEVER));
        DispatchSimulation sim = new DispatchSimulation(q, SEED, 2_000);
        sim.runUntil(100_000);
        assertThat(sim.maxTokensUsed).isLessThanOrEqualTo(270_000).isGreaterThan(270_000 - 800);
        assertThat(sim.maxInFlight).isLessThanOrEqualTo(180);
        // the backfill saturates what batch may use; a person arrives and goes in the same tick
        assertThat(BudgetView.of(sim.budget.snapshot(SEED, sim.nowMs))
                        .admits(Job.of("x", "backfill", 1, JobClass.BATCH, 800, 0, NEVER), 0.1))
                .isFalse();
        q.enqueue(Job.of("p", "person", 3, JobClass.INTERACTIVE, 800, sim.nowMs, NEVER));
        long arrived = sim.nowMs;
        sim.step();
        assertThat(sim.lastSendOf("person")).isEqualTo(arrived);
    }

    @Test
    void theInputAndOutputWindowsCountInTheViewWithTheFloorWhereTheProviderHasThem() {
        Job batch = Job.of("b", "t", 1, JobClass.BATCH, 1_100, 0, NEVER).withSplit(100, 1_000);
        Job person = Job.of("p", "t", 1, JobClass.INTERACTIVE, 1_100, 0, NEVER).withSplit(100, 1_000);
        // output: limit 10,000, floor 0.1 → batch may bring it to 9,000; a person to the top
        BudgetView split = new BudgetView(Long.MAX_VALUE, 0, 100, 0, 100, 0, false, 50_000, 0, 10_000, 8_000);
        assertThat(split.admits(batch, 0.1)).isTrue();
        assertThat(split.after(batch).admits(batch, 0.1)).isFalse();
        assertThat(split.after(batch).admits(person, 0.1)).isTrue();
        assertThat(split.after(batch).after(person).admits(person, 0.1))
                .as("the output window is full")
                .isFalse();
        assertThat(split.after(person).outputUsed()).isEqualTo(9_000);
        assertThat(split.after(person).inputUsed()).isEqualTo(100);
        // input: a prompt past the room waits too
        assertThat(new BudgetView(Long.MAX_VALUE, 0, 100, 0, 100, 0, false, 50_000, 49_950, 10_000, 0)
                        .admits(person, 0.1))
                .isFalse();
        // larger than a whole split limit: let through at once, the budget refuses it for good
        assertThat(new BudgetView(Long.MAX_VALUE, 0, 100, 0, 100, 0, true, 50_000, 0, 999, 0).admits(person, 0.1))
                .isTrue();
        // without the split the view ignores them, as before
        assertThat(new BudgetView(10_000, 0, 100, 0, 100, 0, false)
                        .after(person)
                        .admits(person, 0.1))
                .isTrue();
    }

    @Test
    void theFloorIsPreciseInEveryDimension() {
        Job batch = job("t", 1, JobClass.BATCH, 100);
        Job person = job("t", 1, JobClass.INTERACTIVE, 100);
        // tokens: limit 1000, floor 0.1 → batch may bring usage to 900
        assertThat(new BudgetView(1000, 800, 100, 0, 100, 0, false).admits(batch, 0.1))
                .isTrue();
        assertThat(new BudgetView(1000, 801, 100, 0, 100, 0, false).admits(batch, 0.1))
                .isFalse();
        assertThat(new BudgetView(1000, 900, 100, 0, 100, 0, false).admits(person, 0.1))
                .isTrue();
        // requests: limit 100 → batch may use 90
        assertThat(new BudgetView(1000, 0, 100, 89, 100, 0, false).admits(batch, 0.1))
                .isTrue();
        assertThat(new BudgetView(1000, 0, 100, 90, 100, 0, false).admits(batch, 0.1))
                .isFalse();
        // slots: 0.1 × 190 reserves exactly 19, so batch may hold 171
        assertThat(new BudgetView(1000, 0, 100, 0, 190, 170, false).admits(batch, 0.1))
                .isTrue();
        assertThat(new BudgetView(1000, 0, 100, 0, 190, 171, false).admits(batch, 0.1))
                .isFalse();
        // one slot in all: the reserve cannot take the only one
        assertThat(new BudgetView(1000, 0, 100, 0, 1, 0, false).admits(batch, 0.1))
                .isTrue();
        // a batch job too big to leave the reserve runs in an otherwise empty window
        Job big = job("t", 1, JobClass.BATCH, 950);
        assertThat(new BudgetView(1000, 0, 100, 0, 100, 0, false).admits(big, 0.1))
                .isTrue();
        assertThat(new BudgetView(1000, 1, 100, 0, 100, 0, false).admits(big, 0.1))
                .isFalse();
        // paused: nothing goes
        assertThat(new BudgetView(1000, 0, 100, 0, 100, 0, true).admits(person, 0.1))
                .isFalse();
    }

    // --- the loop's rules ---

    @Test
    void whenTheHeadDoesNotFitNothingSkipsAheadOfIt() {
        queue.enqueue(job("big", 1, JobClass.INTERACTIVE, 5_000));
        queue.enqueue(job("small", 1, JobClass.INTERACTIVE, 100));
        BudgetView room3000 = new BudgetView(10_000, 7_000, 1000, 0, 100, 0, false);
        assertThat(queue.next(room3000)).isEmpty();
        assertThat(queue.depth()).isEqualTo(2);
        BudgetView room5000 = new BudgetView(10_000, 5_000, 1000, 0, 100, 0, false);
        assertThat(queue.next(room5000).orElseThrow().tenant()).isEqualTo("big");
    }

    @Test
    void aJobLargerThanTheWholeBudgetIsHandedOutToFailFast() {
        queue.enqueue(job("huge", 1, JobClass.INTERACTIVE, 20_000));
        BudgetView full = new BudgetView(10_000, 10_000, 1000, 1000, 100, 100, false);
        assertThat(queue.next(full)).isPresent();
    }

    @Test
    void noSlotOrNoRequestMeansNothingGoes() {
        enqueue("a", 1, JobClass.INTERACTIVE, 1, 1);
        assertThat(queue.next(new BudgetView(10_000, 0, 1000, 0, 100, 100, false)))
                .isEmpty();
        assertThat(queue.next(new BudgetView(10_000, 0, 1000, 1000, 100, 0, false)))
                .isEmpty();
    }

    @Test
    void aRequeuedJobGoesBackToTheHeadOfItsLaneWithItsAttempts() {
        enqueue("a", 1, JobClass.INTERACTIVE, 500, 3);
        enqueue("b", 1, JobClass.INTERACTIVE, 500, 3);
        Job first = queue.next(ROOMY).orElseThrow();
        assertThat(first.tenant()).isEqualTo("a");
        queue.requeueAtHead(first.nextAttempt());
        Job again = queue.next(ROOMY).orElseThrow();
        assertThat(again.id()).isEqualTo(first.id());
        assertThat(again.attempts()).isEqualTo(1);
        assertThat(drainTenants(2)).as("the retry was charged once, not twice").containsExactly("b", "a");
    }

    @Test
    void aRemovedJobIsNeverSent() {
        Job gone = job("a", 1, JobClass.INTERACTIVE, 10);
        queue.enqueue(gone);
        enqueue("a", 1, JobClass.INTERACTIVE, 10, 1);
        assertThat(queue.remove(gone.id())).contains(gone);
        assertThat(queue.remove(gone.id())).isEmpty();
        assertThat(queue.next(ROOMY).orElseThrow().id()).isNotEqualTo(gone.id());
        assertThat(queue.depth()).isZero();
    }

    @Test
    void jobsPastTheirDeadlineExpireBeforeTheyAreSent() {
        queue.enqueue(Job.of("soon", "a", 1, JobClass.INTERACTIVE, 10, 0, 5_000));
        queue.enqueue(Job.of("later", "a", 1, JobClass.BATCH, 10, 0, 9_000));
        queue.enqueue(Job.of("never", "b", 1, JobClass.INTERACTIVE, 10, 0, NEVER));
        assertThat(queue.expire(4_999)).isEmpty();
        assertThat(queue.expire(5_000)).extracting(Job::id).containsExactly("soon");
        assertThat(queue.expire(60_000)).extracting(Job::id).containsExactly("later");
        assertThat(queue.depth()).isEqualTo(1);
        assertThat(queue.depth(JobClass.INTERACTIVE)).isEqualTo(1);
        assertThat(queue.depth(JobClass.BATCH)).isZero();
    }

    @Test
    void theQueueIsBounded() {
        FairQueue small = new FairQueue(3, 0);
        for (int i = 0; i < 3; i++)
            assertThat(small.enqueue(job("t" + i, 1, JobClass.INTERACTIVE, 1))).isTrue();
        assertThat(small.isFull()).isTrue();
        assertThat(small.enqueue(job("late", 1, JobClass.INTERACTIVE, 1))).isFalse();
        Job out = small.next(ROOMY).orElseThrow();
        small.enqueue(job("t9", 1, JobClass.INTERACTIVE, 1));
        small.requeueAtHead(out); // an accepted job is never dropped for room
        assertThat(small.depth()).isEqualTo(4);
    }

    @Test
    void aJobIdIsQueuedOnce() {
        Job j = job("a", 1, JobClass.INTERACTIVE, 1);
        queue.enqueue(j);
        assertThatThrownBy(() -> queue.enqueue(j)).hasMessageContaining("already queued");
    }

    @Test
    void memoryFollowsTheQueue() {
        enqueue("a", 1, JobClass.INTERACTIVE, 10, 5);
        enqueue("b", 1, JobClass.INTERACTIVE, 10, 5);
        drainTenants(10);
        assertThat(queue.tenants().lanesWaiting()).isZero();
        enqueue("c", 1, JobClass.INTERACTIVE, 10, 1);
        assertThat(queue.aheadOf(job("d", 1, JobClass.INTERACTIVE, 10)).position())
                .isEqualTo(2);
    }

    // --- positions, for the door ---

    @Test
    void aNewTenantsPlaceIsBesideTheBacklogNotBehindIt() {
        enqueue("ten-books", 2, JobClass.INTERACTIVE, 800, 1_000);
        WorkAhead ahead = queue.aheadOf(job("one-book", 2, JobClass.INTERACTIVE, 800));
        assertThat(ahead.position()).isEqualTo(2);
        assertThat(ahead.tokens()).isEqualTo(800);
        enqueue("one-book", 2, JobClass.INTERACTIVE, 800, 100);
        // its 100th page: 99 of its own and 100 of the backlog's pages go before it
        WorkAhead last = queue.ahead("j" + ids).orElseThrow();
        assertThat(last.jobs()).isEqualTo(99 + 100);
        assertThat(queue.position("nope")).isEmpty();
    }

    @Test
    void aBatchJobHasEveryInteractiveJobAhead() {
        enqueue("a", 1, JobClass.BATCH, 100, 5);
        enqueue("b", 1, JobClass.INTERACTIVE, 100, 3);
        WorkAhead ahead = queue.aheadOf(job("c", 1, JobClass.BATCH, 100));
        assertThat(ahead.jobs()).isEqualTo(3 + 1); // the interactive three, then a's head wins the tie
    }

    /** For a static queue and room for everything, the predicted positions are the service order. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 99})
    void predictedPositionsAreTheServiceOrder(long seed) {
        Random random = new Random(seed);
        for (int i = 0; i < 300; i++) {
            String tenant = "t" + random.nextInt(7);
            int priority = 1 + Math.abs(tenant.hashCode()) % 3;
            JobClass c = random.nextInt(4) == 0 ? JobClass.BATCH : JobClass.INTERACTIVE;
            queue.enqueue(job(tenant, priority, c, 1 + random.nextInt(2_000)));
            if (random.nextInt(5) == 0) queue.next(ROOMY); // counters that differ
        }
        Map<String, Integer> predicted = new HashMap<>();
        for (int i = 1; i <= ids; i++) {
            String id = "j" + i;
            queue.position(id).ifPresent(p -> predicted.put(id, p));
        }
        List<Job> order = queue.inServiceOrder();
        int served = 0;
        Optional<Job> next;
        while (true) {
            Optional<Job> peeked = queue.peek();
            next = queue.next(ROOMY);
            assertThat(next).isEqualTo(peeked);
            if (next.isEmpty()) break;
            served++;
            assertThat(predicted.get(next.get().id()))
                    .as("job %s", next.get().id())
                    .isEqualTo(served);
            assertThat(order.get(served - 1)).isEqualTo(next.get());
        }
        assertThat(served).isEqualTo(predicted.size()).isEqualTo(order.size());
    }

    @Test
    void deadlinesCanBeCheckedAheadOfTime() {
        queue.enqueue(Job.of("soon", "a", 1, JobClass.INTERACTIVE, 10, 0, 5_000));
        queue.enqueue(Job.of("later", "b", 1, JobClass.INTERACTIVE, 10, 0, 60_000));
        assertThat(queue.anyDeadlineBy(4_999)).isFalse();
        assertThat(queue.anyDeadlineBy(5_000)).isTrue();
        assertThat(queue.peek().orElseThrow().id()).isEqualTo("soon");
    }

    // --- a full queue ---

    @Test
    void aFullQueueMakesRoomByTheLongestLanesLastJob() {
        FairQueue small = new FairQueue(10, 0.1);
        for (int i = 0; i < 6; i++) small.enqueue(Job.of("a" + i, "a", 1, JobClass.INTERACTIVE, 100, 0, NEVER));
        small.enqueue(Job.of("a-batch", "a", 1, JobClass.BATCH, 100, 0, NEVER));
        for (int i = 0; i < 3; i++) small.enqueue(Job.of("b" + i, "b", 1, JobClass.INTERACTIVE, 100, 0, NEVER));
        assertThat(small.isFull()).isTrue();
        Job newcomer = Job.of("c0", "c", 1, JobClass.INTERACTIVE, 100, 0, NEVER);
        assertThat(small.victimFor(newcomer))
                .as("a's last in service order: its batch job")
                .map(Job::id)
                .contains("a-batch");
        assertThat(small.victimFor(Job.of("b3", "b", 1, JobClass.INTERACTIVE, 100, 0, NEVER)))
                .as("b: 4 after, a: 6 left")
                .map(Job::id)
                .contains("a-batch");
        assertThat(small.victimFor(Job.of("a7", "a", 1, JobClass.INTERACTIVE, 100, 0, NEVER)))
                .as("the longest itself")
                .isEmpty();
        assertThat(new FairQueue(10, 0.1).victimFor(newcomer))
                .as("room: nobody leaves")
                .isEmpty();
        // lanes of equal length: a newcomer would hold no more than the one it displaced, a fourth job would hold more
        FairQueue even = new FairQueue(4, 0.1);
        for (String id : List.of("x0", "x1")) even.enqueue(Job.of(id, "x", 1, JobClass.INTERACTIVE, 100, 0, NEVER));
        for (String id : List.of("y0", "y1")) even.enqueue(Job.of(id, "y", 1, JobClass.INTERACTIVE, 100, 0, NEVER));
        assertThat(even.victimFor(newcomer))
                .map(Job::id)
                .as("ties: the newer lane")
                .contains("y1");
        even.remove("y1");
        even.enqueue(newcomer);
        assertThat(even.victimFor(Job.of("c1", "c", 1, JobClass.INTERACTIVE, 100, 0, NEVER)))
                .isEmpty();
        assertThat(even.victimFor(Job.of("y2", "y", 1, JobClass.INTERACTIVE, 100, 0, NEVER)))
                .isEmpty();
    }

    // --- credit, bounded ---

    @Test
    void aTenantWhoseBookWentOutBeforeTheOthersCameIsBehindThemUpToTheCredit() {
        FairQueue credited = new FairQueue(10_000, 0.1, 72_000); // a quarter of 288 000 tokens a minute
        for (int i = 0; i < 100; i++)
            credited.enqueue(Job.of("a" + i, "early", 1, JobClass.INTERACTIVE, 800, 0, NEVER));
        for (int i = 0; i < 97; i++) credited.next(ROOMY); // its book went out while it was alone
        credited.advanceTo(Door.LONGEST_BURST_MS); // and the late one comes after that burst
        for (int i = 0; i < 100; i++) credited.enqueue(Job.of("b" + i, "late", 1, JobClass.INTERACTIVE, 800, 0, NEVER));
        assertThat(credited.aheadOf(Job.of("c0", "later", 1, JobClass.INTERACTIVE, 800, 0, NEVER))
                        .position())
                .as("a third tenant starts at the same floor less the credit: beside the late one")
                .isEqualTo(2);
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 100; i++)
            order.add(credited.next(ROOMY).orElseThrow().tenant());
        // 72 000 of credit is 90 pages: the late tenant's first 90 go before the early one's last 3, then they
        // alternate
        assertThat(order.subList(0, 90)).containsOnly("late");
        assertThat(order.subList(90, 96)).containsExactly("early", "late", "early", "late", "early", "late");

        // without credit (VTC as it was), the late tenant starts level: the early one's head start is kept for good
        FairQueue plain = new FairQueue(10_000, 0.1);
        for (int i = 0; i < 100; i++) plain.enqueue(Job.of("a" + i, "early", 1, JobClass.INTERACTIVE, 800, 0, NEVER));
        for (int i = 0; i < 97; i++) plain.next(ROOMY);
        plain.advanceTo(Door.LONGEST_BURST_MS);
        for (int i = 0; i < 100; i++) plain.enqueue(Job.of("b" + i, "late", 1, JobClass.INTERACTIVE, 800, 0, NEVER));
        assertThat(plain.next(ROOMY).orElseThrow().tenant()).isEqualTo("early");
    }

    @Test
    void aTenantWhoseFirstCallCameInTheSameBurstStartsLevelWithTheOneWhoseBookWentOutAtOnce() {
        // An empty budget sends the first tenant's book before the second's first call reaches the queue, a few
        // milliseconds later: within the burst both start where the first did, so the second is owed the whole book.
        FairQueue credited = new FairQueue(10_000, 0.1, 72_000);
        for (int i = 0; i < 100; i++)
            credited.enqueue(Job.of("a" + i, "early", 1, JobClass.INTERACTIVE, 800, 10, NEVER));
        for (int i = 0; i < 97; i++) credited.next(ROOMY);
        for (int i = 0; i < 100; i++)
            credited.enqueue(Job.of("b" + i, "late", 1, JobClass.INTERACTIVE, 800, 16, NEVER));
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 100; i++)
            order.add(credited.next(ROOMY).orElseThrow().tenant());
        // 97 pages behind, not 90: the late tenant's first 97 go before the early one's last 3, then they alternate
        assertThat(order.subList(0, 97)).containsOnly("late");
        assertThat(order.subList(97, 100)).containsExactly("early", "late", "early");
    }

    @Test
    void theCreditIsBoundedAndDoesNotCompound() {
        FairQueue credited = new FairQueue(10_000, 0.1, 8_000); // ten pages
        for (int i = 0; i < 1_000; i++)
            credited.enqueue(Job.of("a" + i, "hog", 1, JobClass.INTERACTIVE, 800, 0, NEVER));
        for (int i = 0; i < 500; i++) credited.next(ROOMY);
        credited.advanceTo(Door.LONGEST_BURST_MS);
        // idle for ever or new: ten pages of credit, not 500
        for (int i = 0; i < 30; i++) credited.enqueue(Job.of("b" + i, "b", 1, JobClass.INTERACTIVE, 800, 0, NEVER));
        for (int i = 0; i < 30; i++) credited.enqueue(Job.of("c" + i, "c", 1, JobClass.INTERACTIVE, 800, 0, NEVER));
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 23; i++)
            order.add(credited.next(ROOMY).orElseThrow().tenant());
        // b and c both start ten pages below the hog (c not ten below b): 20 pages between them, then one each in turn
        assertThat(order.subList(0, 20)).containsOnly("b", "c");
        assertThat(order.subList(20, 23)).containsExactly("hog", "b", "c");
        assertThatThrownBy(() -> new FairQueue(1, 0.1, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(FairQueue.forBudget(1, 0.1, 300_000)).isNotNull();
    }

    @Test
    void batchWorkHeldBackByInteractiveDoesNotWidenTheCredit() {
        // Seed 91 of the simulation: batch jobs wait at a low counter the whole time interactive work is served
        // (interactive goes first). Counted as the floor, they let a tenant back from idle start as far below the
        // served ones as it last left them, not at most the credit below: it then took the line for a minute.
        FairQueue credited = new FairQueue(10_000, 0.1, 8_000); // ten pages
        for (int i = 0; i < 5; i++) credited.enqueue(Job.of("x" + i, "batchy", 1, JobClass.BATCH, 800, 0, NEVER));
        credited.enqueue(Job.of("b0", "b", 1, JobClass.INTERACTIVE, 800, 0, NEVER));
        assertThat(credited.next(ROOMY).orElseThrow().tenant())
                .isEqualTo("b"); // b has been served one page, then idles
        for (int i = 0; i < 100; i++) credited.enqueue(Job.of("a" + i, "hog", 1, JobClass.INTERACTIVE, 800, 0, NEVER));
        for (int i = 0; i < 60; i++) credited.next(ROOMY); // the hog is served 60 pages while b idles
        credited.advanceTo(Door.LONGEST_BURST_MS);
        for (int i = 1; i < 40; i++) credited.enqueue(Job.of("b" + i, "b", 1, JobClass.INTERACTIVE, 800, 0, NEVER));
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 13; i++)
            order.add(credited.next(ROOMY).orElseThrow().tenant());
        // b starts ten pages below the hog (the credit), not 59 below: the batch lane's counter is not the floor
        assertThat(order.subList(0, 10)).containsOnly("b");
        assertThat(order.subList(10, 13)).containsExactly("hog", "b", "hog");
    }
}
