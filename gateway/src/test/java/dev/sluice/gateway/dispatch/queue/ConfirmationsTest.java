package dev.sluice.gateway.dispatch.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.queue.Door.Capacity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * When a promise gives way. Alone, the store's view decides at once. Among replicas, one view
 * newer than the other misjudges: a store view fresher than the share counts the other replica's
 * sends twice (in its line and in the budget), a share fresher than the store view misses them.
 * So a promise found broken only by counting the other replicas' lines gives way once a store view
 * and a share taken since both find it broken; one broken on the budget alone gives way at once.
 */
class ConfirmationsTest {
    static final long PAGE = 800;
    /** Everything the window holds leaves in a minute: no page due in 2.7 s can start in time. */
    static final Capacity FULL = DoorTest.burstLeavingIn(60_000);

    final FairQueue queue = FairQueue.forBudget(10_000, 0.1, 300_000);
    final Door door = new Door(queue);
    final Confirmations confirmations = new Confirmations();

    private void promiseTenPagesAt(long nowMs) {
        for (int i = 0; i < 10; i++) {
            Job job = Job.of("a" + i, "a", 1, JobClass.INTERACTIVE, PAGE, nowMs, nowMs + 2_700);
            DoorDecision d = door.admit(job, DoorTest.FRESH, 2_700, nowMs);
            assertThat(d.accepted()).isTrue();
            queue.enqueue(job, d.turnAtLeast());
        }
    }

    private static List<String> ids(List<DoorDecision.Displaced> out) {
        return out.stream().map(d -> d.job().id()).toList();
    }

    @Test
    void aloneTheStoresViewDecidesAtOnce() {
        promiseTenPagesAt(10);

        assertThat(ids(confirmations.review(door, FULL, 100, 90))).hasSize(10);
    }

    /** Another replica's tenant, ahead in counter order, with a thousand pages in its line as the last share said. */
    private void aLongLineElsewhere() {
        door.elsewhere(Map.of("b", new LaneShare.Demand("b", 1, 1_000 * PAGE, 0, 0, -1L << 40, 1_000)));
    }

    @Test
    void amongReplicasAPromiseBrokenByTheOthersLineGivesWayWhenAStoreViewAndAShareTakenSinceBothFindItBroken() {
        confirmations.sharing();
        confirmations.fleetSeen(-400, 0);
        promiseTenPagesAt(10);
        aLongLineElsewhere(); // it may have sent some of it since: the budget would count those twice

        assertThat(confirmations.review(door, DoorTest.FRESH, 100, 90))
                .as("a store view fresher than the last share: in doubt")
                .isEmpty();
        assertThat(confirmations.review(door, DoorTest.FRESH, 150, 140))
                .as("another store view, still no share since")
                .isEmpty();
        confirmations.fleetSeen(-200, 200);
        assertThat(ids(confirmations.review(door, DoorTest.FRESH, 200, Long.MIN_VALUE)))
                .as("the share came: both views since the doubt find it broken")
                .hasSize(10);
    }

    @Test
    void aPromiseBrokenOnTheBudgetAloneGivesWayAtOnceWhateverTheViewsAge() {
        // The packaged gateway, two replicas: pages promised a start at once on a view older than the other
        // replica's burst, doubted on a fresher one (no share since), then held until the pump's next store call,
        // up to 5 s later, and dropped (54 of 837 admitted pages in one judged run).
        confirmations.sharing();
        confirmations.fleetSeen(-400, 0);
        promiseTenPagesAt(10);

        assertThat(ids(confirmations.review(door, FULL, 100, 90)))
                .as("the budget alone holds no room for them: nothing there is counted twice")
                .hasSize(10);
    }

    @Test
    void aShareFresherThanTheStoresViewDoesNotClearADoubt() {
        confirmations.sharing();
        confirmations.fleetSeen(-400, 0);
        promiseTenPagesAt(10);
        aLongLineElsewhere();
        assertThat(confirmations.review(door, DoorTest.FRESH, 100, 90)).isEmpty();

        // The share shows the other replica's line gone (it sent), the store's view does not show those sends yet.
        door.elsewhere(Map.of());
        confirmations.fleetSeen(-200, 200);
        assertThat(confirmations.review(door, DoorTest.FRESH, 200, Long.MIN_VALUE))
                .as("kept on a share alone")
                .isEmpty();
        // The next store view, sent after the doubt, shows the room taken: the doubt stood and it gives way now.
        assertThat(ids(confirmations.review(door, FULL, 260, 250))).hasSize(10);
    }

    @Test
    void aDoubtBothViewsSinceFindKeptIsKept() {
        confirmations.sharing();
        confirmations.fleetSeen(-400, 0);
        promiseTenPagesAt(10);
        aLongLineElsewhere();
        assertThat(confirmations.review(door, DoorTest.FRESH, 100, 90)).isEmpty();

        door.elsewhere(Map.of());
        confirmations.fleetSeen(-200, 200);
        assertThat(confirmations.review(door, DoorTest.FRESH, 220, 210)).isEmpty();
        confirmations.fleetSeen(200, 600);
        assertThat(confirmations.review(door, DoorTest.FRESH, 700, 650))
                .as("past the burst and confirmed by both views")
                .isEmpty();
        assertThat(confirmations.review(door, FULL, 800, 750))
                .as("a firm promise is not reviewed again")
                .isEmpty();
    }

    /** A share that surely holds the other replica's line as of the store's view counts no send twice: broken is broken. */
    @Test
    void aPromiseFoundBrokenOnViewsThatAgreeGivesWayAtOnce() {
        confirmations.sharing();
        promiseTenPagesAt(10);
        confirmations.fleetSeen(200, 600); // the share holds what the others did up to 200 ms

        assertThat(ids(confirmations.review(door, FULL, 600, 90)))
                .as("the store call was sent at 90 ms, before what the share holds")
                .hasSize(10);
    }
}
