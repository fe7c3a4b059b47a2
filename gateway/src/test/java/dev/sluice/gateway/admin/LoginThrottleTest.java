package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {
    static final Instant T0 = Instant.parse("2026-12-01T12:00:00Z");
    static final Duration WINDOW = Duration.ofMinutes(15);
    final LoginThrottle throttle = new LoginThrottle(5, 20, WINDOW);

    @Test
    void fiveFailuresFromOneAddressRefuseTheSixthUntilTheFirstLeavesTheWindow() {
        for (int i = 0; i < 5; i++) {
            assertThat(throttle.refusedFor("10.0.0.1", "ops", T0.plusSeconds(i)))
                    .isEmpty();
            throttle.failed("10.0.0.1", "ops", T0.plusSeconds(i));
        }
        assertThat(throttle.refusedFor("10.0.0.1", "ops", T0.plusSeconds(10))).contains(WINDOW.minusSeconds(10));
        assertThat(throttle.refusedFor("10.0.0.1", "someone-else", T0.plusSeconds(10)))
                .isPresent();
        assertThat(throttle.refusedFor("10.0.0.2", "ops", T0.plusSeconds(10)))
                .as("another address, same user")
                .isEmpty();
        assertThat(throttle.refusedFor("10.0.0.1", "ops", T0.plus(WINDOW))).isEmpty();
    }

    @Test
    void fortyWrongPasswordsInARowAreThrottledAfterTheFifth() {
        int checked = 0;
        for (int i = 0; i < 40; i++) {
            Instant now = T0.plusMillis(15L * i);
            if (throttle.refusedFor("10.0.0.1", "ops", now).isPresent()) continue;
            checked++;
            throttle.failed("10.0.0.1", "ops", now);
        }
        assertThat(checked).isEqualTo(5);
    }

    @Test
    void oneUserNameTakesAtMostTwentyFailuresFromAllAddressesTogether() {
        for (int i = 0; i < 20; i++) throttle.failed("10.0.1." + i, "ops", T0.plusSeconds(i));
        assertThat(throttle.refusedFor("10.9.9.9", "ops", T0.plusSeconds(30))).contains(WINDOW.minusSeconds(30));
        assertThat(throttle.refusedFor("10.9.9.9", "other", T0.plusSeconds(30))).isEmpty();
    }

    @Test
    void aSuccessClearsOnlyItsOwnAddress() {
        for (int i = 0; i < 5; i++) throttle.failed("10.0.0.1", "ops", T0);
        for (int i = 0; i < 4; i++) throttle.failed("10.0.0.2", "ops", T0);
        throttle.succeeded("10.0.0.2");
        assertThat(throttle.refusedFor("10.0.0.1", "ops", T0.plusSeconds(1)))
                .as("the attacker's address stays throttled")
                .isPresent();
        for (int i = 0; i < 4; i++) throttle.failed("10.0.0.2", "ops", T0.plusSeconds(2));
        assertThat(throttle.refusedFor("10.0.0.2", "ops", T0.plusSeconds(3)))
                .as("the admin's count starts again")
                .isEmpty();
        // ...but the user name's count is not wiped by the success: 5 + 4 + 4 failures of 20 so far.
        for (int i = 0; i < 7; i++) throttle.failed("10.0.2." + i, "ops", T0.plusSeconds(4));
        assertThat(throttle.refusedFor("10.0.0.3", "ops", T0.plusSeconds(5))).isPresent();
    }

    @Test
    void sprayingNamesAndAddressesCannotGrowItsMemoryWithoutBound() {
        for (int i = 0; i < 3 * LoginThrottle.MAX_KEYS; i++) throttle.failed("10." + i, "user-" + i, T0.plusMillis(i));
        assertThat(throttle.keys()).isLessThanOrEqualTo(LoginThrottle.MAX_KEYS);
    }
}
