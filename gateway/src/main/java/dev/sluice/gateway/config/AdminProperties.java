package dev.sluice.gateway.config;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The admin API's credentials, from the environment, and how failed logins are throttled
 * ({@code sluice.admin.*}, see the admin package's LoginThrottle).
 *
 * @param user     the admin user name (SLUICE_ADMIN_USER)
 * @param password the admin password (SLUICE_ADMIN_PASSWORD); unset: one is generated at start and logged once
 * @param login    how failed logins are throttled
 */
@ConfigurationProperties("sluice.admin")
public record AdminProperties(@DefaultValue("admin") String user, String password, @DefaultValue Login login) {
    public AdminProperties {
        user = user == null || user.isBlank() ? "admin" : user.trim();
        password = password == null ? "" : password;
        login = login == null ? new Login(5, 20, null) : login;
    }

    /**
     * @param maxFailuresPerAddress failed logins one client address may make within the window
     * @param maxFailuresPerUser    failed logins for one user name within the window, from anywhere
     * @param window                how long a failed login counts, at most 1d
     */
    public record Login(@DefaultValue("5") int maxFailuresPerAddress, @DefaultValue("20") int maxFailuresPerUser,
                        @DefaultValue("15m") Duration window) {
        public Login {
            window = window == null ? Duration.ofMinutes(15) : window;
            Checks.atLeast("sluice.admin.login.max-failures-per-address", maxFailuresPerAddress, 1);
            Checks.atLeast("sluice.admin.login.max-failures-per-user", maxFailuresPerUser, 1);
            Checks.positive("sluice.admin.login.window", window);
            if (window.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException("sluice.admin.login.window must be at most 1d, was " + Checks.show(window));
            }
        }
    }
}
