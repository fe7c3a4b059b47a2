package dev.sluice.gateway.dispatch.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.queue.LaneShare.Report;
import dev.sluice.gateway.dispatch.queue.LaneShare.Terms;
import dev.sluice.gateway.dispatch.queue.LaneShare.View;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link LaneShare} does, memory and Redis alike (the Redis one is {@code lane_share.lua}). */
abstract class LaneShareContract {
    static final long TTL = 1_000;
    static final long CREDIT = 30_000;
    static final Terms TERMS = new Terms(TTL, CREDIT);
    LaneShare share;
    String key;

    abstract LaneShare newShare();

    @BeforeEach
    void setUp() {
        share = newShare();
        key = "test-" + UUID.randomUUID() + ":gpt-4o-mini"; // a budget of its own: tests never see each other's
    }

    View publish(String replica, long nowMs, Report... lanes) {
        return share.publish(key, replica, nowMs, List.of(lanes), List.of(), TERMS)
                .block(Duration.ofSeconds(5));
    }

    View publishDemand(String replica, long nowMs, LaneShare.Demand... demand) {
        return share.publish(key, replica, nowMs, List.of(), List.of(demand), TERMS)
                .block(Duration.ofSeconds(5));
    }

    @Test
    void eachReplicaSeesTheOthersDemandSummedNotItsOwnAndForgetsASilentOneAfterTheTtl() {
        LaneShare.Demand odd = new LaneShare.Demand("tenant with spaces/é\n", 2, 1_600, 81_000, 100);
        publishDemand("a", 1_000, new LaneShare.Demand("t1", 1, 800, 8_100, 10), odd);
        publishDemand("c", 1_100, new LaneShare.Demand("t1", 1, 0, 810, 1));
        View b = publishDemand("b", 1_200, new LaneShare.Demand("t2", 1, 0, 810, 1));
        assertThat(b.elsewhere()).containsOnlyKeys("t1", odd.tenant());
        assertThat(b.elsewhere().get("t1")).isEqualTo(new LaneShare.Demand("t1", 1, 800, 8_910, 11));
        assertThat(b.elsewhere().get(odd.tenant())).isEqualTo(odd);
        View a = publishDemand("a", 1_300, new LaneShare.Demand("t1", 1, 0, 8_100, 10));
        assertThat(a.elsewhere()).as("c's and b's, not its own").containsOnlyKeys("t1", "t2");
        assertThat(a.elsewhere().get("t1").askedTokens()).isEqualTo(810);
        // c and b fall silent: past the TTL their demand no longer counts; a's own empty report withdraws it.
        View later = publishDemand("a", 1_300 + TTL + 1);
        assertThat(later.elsewhere()).isEmpty();
        assertThat(publishDemand("b", 1_300 + TTL + 2).elsewhere())
                .as("a withdrew its demand")
                .isEmpty();
    }

    @Test
    void aDemandTravelsWithItsPlaceAndItsQueuedCallsAndAReplicaThatSaysNeitherIsReadAsBefore() {
        LaneShare.Demand full = new LaneShare.Demand("t1", 1, 8_000, 1_620, 2, -40_000, 10);
        LaneShare.Demand noHead = new LaneShare.Demand("t2", 1, 800, 0, 0, LaneShare.Demand.UNKNOWN_HEAD, 1);
        publishDemand("a", 1_000, full, noHead);
        View b = publishDemand("b", 1_100);
        assertThat(b.elsewhere()).containsEntry("t1", full).containsEntry("t2", noHead);
        // An earlier version's line (five or six fields): its queued calls are unknown, 0.
        assertThat(LaneShare.decode("t3 1 800 0 0\nt4 2 1600 0 0 -7"))
                .containsExactly(
                        new LaneShare.Demand("t3", 1, 800, 0, 0), new LaneShare.Demand("t4", 2, 1_600, 0, 0, -7));
    }

    @Test
    void aDemandTravelsWithWhenItsNextPromiseComesSummedToTheSoonest() {
        LaneShare.Demand due = new LaneShare.Demand("t1", 1, 800, 0, 0, 100, 1, -250);
        LaneShare.Demand later = new LaneShare.Demand("t1", 1, 800, 0, 0, 200, 1, 3_000);
        LaneShare.Demand neither = new LaneShare.Demand("t2", 1, 800, 0, 0, 300, 1);
        publishDemand("a", 1_000, due, neither);
        publishDemand("c", 1_000, later);
        View b = publishDemand("b", 1_100);
        assertThat(b.elsewhere().get("t1").dueInMs()).isEqualTo(-250);
        assertThat(b.elsewhere().get("t1").head()).isEqualTo(100);
        assertThat(b.elsewhere().get("t2").dueInMs()).isEqualTo(LaneShare.Demand.NOT_DUE);
        // Stop 48's seven fields: nothing due.
        assertThat(LaneShare.decode("t3 1 800 0 0 -7 2").get(0).dueInMs()).isEqualTo(LaneShare.Demand.NOT_DUE);
        assertThat(LaneShare.decode(LaneShare.encode(List.of(due)))).containsExactly(due);
    }

    static Report waiting(String tenant, long served) {
        return new Report(tenant, served, true);
    }

    static Report drained(String tenant, long served) {
        return new Report(tenant, served, false);
    }

    @Test
    void aReplicaAloneSeesNoOneElseWaitingAndItsTenantsStartACreditBelowTheFloor() {
        View v = publish("a", 1_000, waiting("t1", 800));
        assertThat(v.othersLowest()).isEmpty();
        assertThat(v.counters()).containsExactly(Map.entry("t1", -CREDIT + 800));
    }

    @Test
    void eachReplicaSeesTheLowestCounterWaitingOnTheOthersNotItsOwn() {
        publish("a", 1_000, waiting("lone", 8_000));
        View b = publish("b", 1_000, waiting("t2", 800), waiting("t3", 1_600));
        assertThat(b.othersLowest()).hasValue(-CREDIT + 8_000);
        View a = publish("a", 1_100, waiting("lone", 800));
        assertThat(a.othersLowest()).as("b's lowest waiting counter").hasValue(-CREDIT + 800);
        assertThat(a.counters()).containsEntry("lone", -CREDIT + 8_800);
    }

    @Test
    void aTenantOnTwoReplicasHasOneCounterWithBothReplicasService() {
        publish("a", 1_000, waiting("t", 800));
        View b = publish("b", 1_000, waiting("t", 1_600));
        assertThat(b.counters()).containsEntry("t", -CREDIT + 2_400);
        assertThat(b.othersLowest()).as("a's last report, before b's service").hasValue(-CREDIT + 800);
    }

    @Test
    void aReplicaThatDrainsStopsHoldingOthersBackAtItsNextReport() {
        publish("a", 1_000, waiting("t1", 800));
        publish("b", 1_000, waiting("t2", 800));
        publish("a", 1_200, drained("t1", 800));
        assertThat(publish("b", 1_200, waiting("t2", 0)).othersLowest()).isEmpty();
    }

    @Test
    void aReplicaThatStopsPublishingDropsOutAfterTheTtl() {
        publish("dead", 1_000, waiting("t1", 0));
        assertThat(publish("b", 1_000 + TTL, waiting("t2", 800)).othersLowest())
                .as("still fresh")
                .hasValue(-CREDIT);
        assertThat(publish("b", 1_001 + TTL, waiting("t2", 800)).othersLowest())
                .as("silent past the TTL")
                .isEmpty();
    }

    @Test
    void aTenantThatStartsWaitingAgainIsLiftedToTheFloorLessTheCreditNeverLowered() {
        publish("a", 1_000, waiting("fast", 0), waiting("slow", 0));
        publish("a", 1_100, waiting("fast", 100_000), drained("slow", 0)); // slow drained; the floor rises to fast's
        publish("a", 1_200, waiting("fast", 0));
        // Past the TTL slow is no longer waiting anywhere: it comes back at the floor (fast's counter) less the credit.
        View v = publish("a", 5_000, waiting("fast", 0), waiting("slow", 0));
        assertThat(v.counters())
                .containsEntry("fast", -CREDIT + 100_000)
                .containsEntry("slow", -CREDIT + 100_000 - CREDIT);
        // fast drains and comes back later: ahead of the floor, it keeps its own counter.
        publish("a", 5_100, drained("fast", 0), waiting("slow", 0));
        assertThat(publish("a", 9_000, waiting("fast", 0), waiting("slow", 0)).counters())
                .containsEntry("fast", -CREDIT + 100_000);
    }

    @Test
    void aCorrectionForATenantNotWaitingIsCounted() {
        publish("a", 1_000, waiting("t", 800));
        assertThat(publish("a", 1_100, drained("t", -300)).counters()).containsEntry("t", -CREDIT + 500);
    }

    @Test
    void countersSaturateInsteadOfOverflowing() {
        publish("a", 1_000, waiting("t", LaneShare.MAX_COUNTER));
        assertThat(publish("a", 1_100, waiting("t", LaneShare.MAX_COUNTER)).counters())
                .containsEntry("t", LaneShare.MAX_COUNTER);
        assertThat(publish("b", 1_100, waiting("u", -LaneShare.MAX_COUNTER)).othersLowest())
                .hasValue(LaneShare.MAX_COUNTER);
    }

    @Test
    void budgetsAreApart() {
        publish("a", 1_000, waiting("t1", 800));
        View other = share.publish(key + "-other", "b", 1_000, List.of(waiting("t2", 0)), List.of(), TERMS)
                .block(Duration.ofSeconds(5));
        assertThat(other.othersLowest()).isEqualTo(OptionalLong.empty());
    }
}
