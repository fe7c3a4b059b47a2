package dev.sluice.gateway.dispatch.upstream;

import static dev.sluice.gateway.dispatch.upstream.SentRequest.countsLaterByMs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.quota.FakeClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

/**
 * When the provider may have counted a call, past its admission plus the count delay: the time
 * the gateway took to send it, and, where the answer proves nothing, the longest count delay
 * (never past the answer's headers). Times are edge values on purpose: unknown ones are
 * {@link Long#MIN_VALUE}.
 */
class SentRequestTest {
    static final long NONE = Long.MIN_VALUE;
    static final long T = 1_800_000_000_000L;

    @Test
    void aCallSentLateCountsThatMuchLaterWhateverTheAnswerProves() {
        assertThat(countsLaterByMs(T, T + 1_500, T + 3_500, true, 250)).isEqualTo(1_500);
        assertThat(countsLaterByMs(T, T, T + 2_000, true, 250))
                .as("sent at once")
                .isZero();
        assertThat(countsLaterByMs(T, T - 5, T + 2_000, true, 250))
                .as("never earlier than admitted")
                .isZero();
        assertThat(countsLaterByMs(NONE, T, T + 2_000, true, 250))
                .as("hand-over unknown")
                .isZero();
    }

    @Test
    void aCallNeverSentMovesNothing() {
        assertThat(countsLaterByMs(T, NONE, NONE, false, 250)).isZero();
        assertThat(countsLaterByMs(T, NONE, T + 2_000, true, 250)).isZero();
    }

    @Test
    void withoutAProofTheTravelIsTheLongestCountDelayButNeverPastTheHeaders() {
        // A whole answer after 2 s that does not say when it was counted: the travel is taken as 1 s, not 250 ms.
        assertThat(countsLaterByMs(T, T + 1_500, T + 3_500, false, 250)).isEqualTo(1_500 + 750);
        // Its headers 100 ms after the sending: the provider had counted it by then, within the count delay.
        assertThat(countsLaterByMs(T, T + 1_500, T + 1_600, false, 250)).isEqualTo(1_500);
        // Headers 600 ms after the sending: counted by then, 350 ms past the count delay at most.
        assertThat(countsLaterByMs(T, T, T + 600, false, 250)).isEqualTo(350);
        // No headers at all (a reset, a timeout): nothing bounds the count but the longest count delay.
        assertThat(countsLaterByMs(T, T, NONE, false, 250)).isEqualTo(750);
        // Headers stamped before the sending (a clock step): no travel, never negative.
        assertThat(countsLaterByMs(T, T, T - 10, false, 250)).isZero();
        // A count delay at its longest already covers it; at 0, the whole second is added.
        assertThat(countsLaterByMs(T, T, T + 2_000, false, BudgetLimits.MAX_COUNT_DELAY_MS))
                .isZero();
        assertThat(countsLaterByMs(T, T, T + 2_000, false, 0)).isEqualTo(BudgetLimits.MAX_COUNT_DELAY_MS);
    }

    @Test
    void theSendingIsWhenTheWholeBodyWasHandedOnNotWhenTheRequestWasMade() {
        FakeClock clock = new FakeClock(T);
        AtomicInteger told = new AtomicInteger();
        SentRequest sent = new SentRequest(
                MockServerHttpRequest.post("/v1/chat/completions").body("{\"model\":\"m\"}"),
                clock,
                told::incrementAndGet);
        assertThat(sent.sentAtMs()).isEqualTo(NONE);
        assertThat(told).as("not told before the body went").hasValue(0);
        clock.advance(1_500);
        String body = DataBufferUtils.join(sent.getBody())
                .map(b -> b.toString(StandardCharsets.UTF_8))
                .block(Duration.ofSeconds(5));
        assertThat(body).as("the body passes as it was").isEqualTo("{\"model\":\"m\"}");
        assertThat(sent.sentAtMs()).isEqualTo(T + 1_500);
        assertThat(told).as("told once, as the body went").hasValue(1);
    }

    @Test
    void aLeaseSentLateCountsFromLaterAndSaturates() {
        Lease lease = new Lease("p:m", "l1", null, T + 250, 0, T + 250, false);
        assertThat(lease.sentAfter(0)).isSameAs(lease);
        assertThat(lease.sentAfter(-1)).isSameAs(lease);
        Lease late = lease.sentAfter(1_500);
        assertThat(late.countsFromMs()).isEqualTo(T + 1_750);
        assertThat(late.chargedAtMs()).as("the charge's key is unchanged").isEqualTo(T + 250);
        assertThat(late.leaseId()).isEqualTo("l1");
        assertThat(new Lease("p:m", "l1", null, 0, 0, Long.MAX_VALUE - 10, false)
                        .sentAfter(100)
                        .countsFromMs())
                .isEqualTo(Long.MAX_VALUE);
    }
}
