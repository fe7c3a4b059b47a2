package dev.sluice.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * One request's store calls share one budget: against a store that never answers, their waits
 * add up to the budget and no more, however many calls the request makes; the one that runs out
 * of budget is told apart from the one that met its own timeout, which alone says Redis is gone.
 */
class DecisionBudgetTest {
    static final Duration TIMEOUT = Duration.ofMillis(500);
    static final Duration BUDGET = Duration.ofMillis(750);

    final VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
    final StoreState state = new StoreState(true, () -> time.now(TimeUnit.MILLISECONDS));
    final AtomicInteger subscribed = new AtomicInteger();
    /** A store call that is sent and never answered, as to a paused Redis. */
    final Mono<String> silent = Mono.<String>never().doOnSubscribe(s -> subscribed.incrementAndGet());

    @AfterEach
    void realTime() {
        VirtualTimeScheduler.reset();
    }

    DecisionBudget budget() {
        return DecisionBudget.of(BUDGET, () -> time.now(TimeUnit.NANOSECONDS));
    }

    /** How a call ended, and when (virtual ms). */
    static final class Ended<T> {
        T value;
        Throwable error;
        long atMs = -1;
    }

    <T> Ended<T> call(Mono<T> call) {
        Ended<T> ended = new Ended<>();
        call.subscribe(
                v -> ended.value = v,
                e -> {
                    ended.error = e;
                    ended.atMs = time.now(TimeUnit.MILLISECONDS);
                },
                () -> ended.atMs = time.now(TimeUnit.MILLISECONDS));
        return ended;
    }

    @Test
    void callsThatNeverAnswerWaitTheBudgetInAllAndTheLastIsNotMade() {
        DecisionBudget budget = budget();
        Ended<String> first = call(budget.within(silent, TIMEOUT, state));
        time.advanceTimeBy(Duration.ofMillis(499));
        assertThat(first.atMs).isEqualTo(-1);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(first.error).isInstanceOf(TimeoutException.class);
        assertThat(budget.waited()).isEqualTo(TIMEOUT);
        // The second (the ladder's ask again, say) gets what is left, not another whole timeout.
        Ended<String> second = call(budget.within(silent, TIMEOUT, state));
        time.advanceTimeBy(Duration.ofMillis(249));
        assertThat(second.atMs).isEqualTo(-1);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(second.error).isInstanceOf(DecisionBudget.Spent.class);
        assertThat(second.atMs).isEqualTo(750);
        assertThat(budget.waited()).isEqualTo(BUDGET);
        assertThat(budget.spent()).isTrue();
        // The third is answered at once and never sent.
        Ended<String> third = call(budget.within(silent, TIMEOUT, state));
        assertThat(third.error).isInstanceOf(DecisionBudget.Spent.class);
        assertThat(third.atMs).isEqualTo(750);
        assertThat(subscribed.get()).isEqualTo(2);
        assertThat(budget.waited()).isEqualTo(BUDGET);
    }

    @Test
    void onlyAWholeTimeoutIsEvidenceThatRedisIsDown() {
        DecisionBudget budget = budget();
        Ended<String> whole = call(budget.within(silent, TIMEOUT, state));
        time.advanceTimeBy(TIMEOUT);
        Ended<String> cut = call(budget.within(silent, TIMEOUT, state));
        time.advanceTimeBy(TIMEOUT);
        assertThat(DecisionBudget.marksDown(whole.error))
                .as("its own timeout: Redis did not answer in time")
                .isTrue();
        assertThat(DecisionBudget.marksDown(cut.error))
                .as("cut short by the request's budget: says nothing of Redis")
                .isFalse();
    }

    @Test
    void aCallStillWaitingWhenAnotherMarksTheStoreDownEndsThenAndIsChargedOnlyItsWait() {
        DecisionBudget budget = budget();
        Ended<String> waiting = call(budget.within(silent, TIMEOUT, state));
        time.advanceTimeBy(Duration.ofMillis(120));
        assertThat(waiting.atMs).isEqualTo(-1);
        state.failed(new TimeoutException("another request's call")); // e.g. the quota's, sent just before
        assertThat(waiting.error).isInstanceOf(StoreUnavailableException.class);
        assertThat(waiting.atMs).isEqualTo(120);
        assertThat(DecisionBudget.marksDown(waiting.error))
                .as("already down: nothing more to mark")
                .isFalse();
        assertThat(budget.waited()).isEqualTo(Duration.ofMillis(120));
        // Down now: a call made meanwhile does not wait at all.
        Ended<String> after = call(budget.within(silent, TIMEOUT, state));
        assertThat(after.error).isInstanceOf(StoreUnavailableException.class);
        assertThat(after.atMs).isEqualTo(120);
    }

    @Test
    void anAnswerIsPassedOnAndItsWaitCharged() {
        DecisionBudget budget = budget();
        Ended<String> answered =
                call(budget.within(Mono.delay(Duration.ofMillis(40)).thenReturn("ok"), TIMEOUT, state));
        time.advanceTimeBy(Duration.ofMillis(40));
        assertThat(answered.value).isEqualTo("ok");
        assertThat(answered.error).isNull();
        assertThat(budget.waited()).isEqualTo(Duration.ofMillis(40));
        assertThat(budget.remaining()).isEqualTo(Duration.ofMillis(710));
        assertThat(budget.bound(TIMEOUT)).isEqualTo(TIMEOUT);
        assertThat(budget.bound(Duration.ofSeconds(2)))
                .as("the dispatch loop's longer timeout, cut")
                .isEqualTo(Duration.ofMillis(710));
    }

    @Test
    void aStoreMarkedDownComesBackWithAFreshSignal() {
        state.failed(new TimeoutException("probe"));
        assertThat(call(state.whenDown()).atMs).as("down: at once").isZero();
        state.answered();
        Ended<Void> next = call(state.whenDown());
        time.advanceTimeBy(Duration.ofSeconds(5));
        assertThat(next.atMs)
                .as("up again: not the spent signal of the last outage")
                .isEqualTo(-1);
        state.failed(new TimeoutException("probe"));
        assertThat(next.atMs).isEqualTo(5_000);
        Ended<Void> never = call(StoreState.alwaysUp().whenDown());
        time.advanceTimeBy(Duration.ofDays(1));
        assertThat(never.atMs).isEqualTo(-1);
    }

    @Test
    void withoutABudgetEachCallWaitsItsOwnTimeout() {
        for (int i = 1; i <= 3; i++) {
            Ended<String> ended = call(DecisionBudget.UNLIMITED.within(silent, TIMEOUT, state));
            time.advanceTimeBy(TIMEOUT);
            assertThat(ended.error).isInstanceOf(TimeoutException.class);
            assertThat(ended.atMs).isEqualTo(500L * i);
        }
        assertThat(DecisionBudget.UNLIMITED.spent()).isFalse();
    }

    @Test
    void aBudgetCannotBeNegative() {
        assertThatThrownBy(() -> DecisionBudget.of(Duration.ofMillis(-1), System::nanoTime))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(DecisionBudget.of(Duration.ZERO, System::nanoTime).spent())
                .as("zero: every call goes to the policy")
                .isTrue();
    }

    /** The wait is counted before the answer goes on: the request's next stage reads it, not a race with doFinally. */
    @Test
    void aCallsWaitIsCountedBeforeItsAnswerGoesOn() {
        DecisionBudget budget = budget();
        Mono<Duration> seenByTheNextStage = budget.within(Mono.delay(Duration.ofMillis(120), time), TIMEOUT, state)
                .map(answer -> budget.waited());

        Ended<Duration> ended = call(seenByTheNextStage);
        time.advanceTimeBy(Duration.ofMillis(120));

        assertThat(ended.value).isEqualTo(Duration.ofMillis(120));
    }
}
