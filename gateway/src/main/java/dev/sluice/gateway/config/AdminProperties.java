package dev.sluice.gateway.admin;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The admin API's credentials, from the environment: {@code SLUICE_ADMIN_USER} (default
 * {@code admin}) and {@code SLUICE_ADMIN_PASSWORD} (unset: one is generated at start and
 * logged once); and how failed logins are throttled ({@code sluice.admin.login.*}, see
 * {@link LoginThrottle}).
 */
@ConfigurationProperties("sluice.admin")
public record AdminProperties(String user, String password, Login login) {
    public AdminProperties {
        user = user == null || user.isBlank() ? "admin" : user.trim();
        password = password == null ? "" : password;
        login = login == null ? new Login(0, 0, null) : login;
    }

    /**
     * @param maxFailuresPerAddress failed logins one client address may make within {@code window} (default 5)
     * @param maxFailuresPerUser    failed logins for one user name within {@code window}, from anywhere (default 20)
     * @param window                how long a failure counts (default 15 minutes)
     */
    public record Login(int maxFailuresPerAddress, int maxFailuresPerUser, Duration window) {
        public Login {
            maxFailuresPerAddress = maxFailuresPerAddress == 0 ? 5 : maxFailuresPerAddress;
            maxFailuresPerUser = maxFailuresPerUser == 0 ? 20 : maxFailuresPerUser;
            window = window == null ? Duration.ofMinutes(15) : window;
            if (maxFailuresPerAddress < 1 || maxFailuresPerUser < 1) {
                throw new IllegalArgumentException("sluice.admin.login.max-failures-per-address and -per-user must be at least 1");
            }
            if (window.isNegative() || window.isZero() || window.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException("sluice.admin.login.window must be positive and at most 1d, was " + window);
            }
        }

        LoginThrottle throttle() {
            return new LoginThrottle(maxFailuresPerAddress, maxFailuresPerUser, window);
        }
    }
}
