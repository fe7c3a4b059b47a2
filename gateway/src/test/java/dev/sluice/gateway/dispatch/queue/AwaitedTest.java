package dev.sluice.gateway.dispatch.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Room that frees early is kept a while for the tenants refused at the door, whom the promises
 * made since counted first ({@link Awaited}); on the pure core and through the fair queue.
 */
class AwaitedTest {
    static final long NEVER = Long.MAX_VALUE;
    static final BudgetView ROOMY = FairQueueTest.ROOMY;

    // --- the pure core ---

    private static List<Awaited.Tenant> at(Awaited a, long nowMs) {
        return a.at(nowMs, tenant -> false, tenant -> 0L);
    }

    @Test
    void aLaneFarAheadWaitsForATenantRefusedBeforeItsJobWasAdmitted() {
        Awaited a = new Awaited(100, 1_000);
        a.refused("late", 1_000);
        List<Awaited.Tenant> waitFor = at(a, 5_000);
        assertThat(a.holds(waitFor, 5_000, 5_000))
                .as("admitted after the refusal: its promise counted it")
                .isTrue();
        assertThat(a.holds(waitFor, 5_000, 999))
                .as("admitted before: its promise did not")
                .isFalse();
        assertThat(a.holds(waitFor, 100, 5_000)).as("within the slack").isFalse();
        assertThat(a.holds(waitFor, 101, 5_000)).isTrue();
    }

    @Test
    void theRoomIsKeptForThePatienceOnceAndAgainOnlyAfterTheTenantCameBack() {
        Awaited a = new Awaited(0, 1_000);
        a.refused("late", 0);
        a.holding(at(a, 5_000), 10, 10, 5_000); // the hold keeps a job the budget has room for, from 5 s
        assertThat(at(a, 5_999)).extracting(Awaited.Tenant::tenant).containsExactly("late");
        assertThat(at(a, 6_000)).as("patience spent: the room goes").isEmpty();

        a.refused("late", 6_500);
        assertThat(at(a, 6_500))
                .as("refused again while the room was kept for it: it did not take it, so no second wait")
                .isEmpty();

        a.joined("late"); // it came back and was queued
        a.refused("late", 7_000);
        assertThat(at(a, 7_000)).extracting(Awaited.Tenant::tenant).containsExactly("late");
    }

    @Test
    void aTenantIsForgottenAfterTheSpanAndATenantInLineIsNotAwaited() {
        Awaited a = new Awaited(0, 1_000);
        a.refused("gone", 0);
        a.refused("queued", 0);
        assertThat(a.at(Awaited.SPAN_MS - 1, "queued"::equals, t -> 0L))
                .extracting(Awaited.Tenant::tenant)
                .containsExactly("gone");
        assertThat(a.at(Awaited.SPAN_MS, t -> false, t -> 0L)).isEmpty();
        assertThat(a.isEmpty()).isTrue();
    }

    @Test
    void awaitedTenantsComeLowestStartFirst() {
        Awaited a = new Awaited(100, 1_000);
        a.refused("far", 0);
        a.refused("near", 0);
        List<Awaited.Tenant> waitFor = a.at(10, t -> false, t -> t.equals("near") ? 1_000 : 5_000);
        assertThat(waitFor).extracting(Awaited.Tenant::tenant).containsExactly("near", "far");
        assertThat(a.holds(waitFor, 2_000, 10))
                .as("past the lowest start by more than the slack")
                .isTrue();
    }

    @Test
    void theReachSaturates() {
        Awaited a = new Awaited(Long.MAX_VALUE, 1_000);
        a.refused("x", 0);
        List<Awaited.Tenant> waitFor = a.at(0, t -> false, t -> Long.MAX_VALUE / 2);
        assertThat(a.holds(waitFor, Long.MAX_VALUE, 0)).isFalse();
        assertThatThrownBy(() -> new Awaited(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    // --- through the fair queue ---

    private static Job page(String id, String tenant, long atMs) {
        return Job.of(id, tenant, 1, JobClass.INTERACTIVE, 1_000, atMs, NEVER);
    }

    /** Two tenants served a book each, the second refused part of its own; the first is back first. */
    private static FairQueue afterTheFirstBooks() {
        FairQueue q = FairQueue.forBudget(10_000, 0.1, 300_000); // credit 150 000, slack 6 000
        for (int i = 0; i < 100; i++) q.enqueue(page("a" + i, "first", 0));
        for (int i = 0; i < 30; i++) q.enqueue(page("b" + i, "second", 0));
        for (int i = 0; i < 130; i++) q.next(ROOMY).orElseThrow();
        q.refused("second", 100); // the rest of its book: refused at the door
        q.advanceTo(5_000);
        for (int i = 0; i < 30; i++) q.enqueue(page("c" + i, "first", 5_000)); // its next book, admitted at 5 s
        return q;
    }

    @Test
    void roomThatFreesEarlyWaitsForTheTenantTheDoorCountedFirst() {
        FairQueue q = afterTheFirstBooks();
        assertThat(q.next(ROOMY))
                .as("room now, but the second tenant is owed it")
                .isEmpty();
        q.advanceTo(5_300);
        q.enqueue(page("d0", "second", 5_300)); // back 300 ms later
        assertThat(q.next(ROOMY).map(Job::tenant)).contains("second");
    }

    @Test
    void aTenantThatDoesNotComeBackHoldsTheRoomForThePatienceOnly() {
        FairQueue q = afterTheFirstBooks();
        assertThat(q.next(ROOMY)).isEmpty(); // the hold starts: room for the first tenant's job
        q.advanceTo(5_000 + Awaited.PATIENCE_MS - 1);
        assertThat(q.next(ROOMY)).isEmpty();
        q.advanceTo(5_000 + Awaited.PATIENCE_MS);
        assertThat(q.next(ROOMY).map(Job::tenant)).contains("first");
    }

    @Test
    void withoutRoomThePatienceDoesNotRun() {
        FairQueue q = afterTheFirstBooks();
        BudgetView full = new BudgetView(10_000_000, 10_000_000, 1_000_000, 1_000_000, 100_000, 0, false);
        assertThat(q.next(full)).isEmpty();
        q.advanceTo(5_000 + 10 * Awaited.PATIENCE_MS);
        assertThat(q.next(full)).isEmpty();
        assertThat(q.next(ROOMY))
                .as("the first room since: kept for the second tenant")
                .isEmpty();
    }

    @Test
    void aJobAdmittedBeforeTheRefusalIsNotHeld() {
        FairQueue q = FairQueue.forBudget(10_000, 0.1, 300_000);
        for (int i = 0; i < 100; i++) q.enqueue(page("a" + i, "first", 0));
        for (int i = 0; i < 60; i++) q.next(ROOMY).orElseThrow();
        q.refused("second", 100); // after the first tenant's book was admitted
        Optional<Job> next = q.next(ROOMY);
        assertThat(next.map(Job::tenant))
                .as("its promise did not count the second tenant")
                .contains("first");
    }

    @Test
    void aQueueWithoutCreditKeepsNothing() {
        FairQueue q = new FairQueue(10_000, 0.1);
        for (int i = 0; i < 10; i++) q.enqueue(page("a" + i, "first", 0));
        for (int i = 0; i < 5; i++) q.next(ROOMY).orElseThrow();
        q.refused("second", 0);
        q.advanceTo(10);
        q.enqueue(page("c", "first", 10));
        assertThat(q.next(ROOMY)).isPresent();
    }
}
