package dev.sluice.gateway.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The admin API's credentials, from the environment, and how failed logins are throttled
 * ({@code sluice.admin.*}, see the admin package's LoginThrottle).
 *
 * @param user     the admin user name (SLUICE_ADMIN_USER)
 * @param password the admin password (SLUICE_ADMIN_PASSWORD); unset: one is generated at start and logged once
 * @param login    how failed logins are throttled
 */
@ConfigurationProperties("sluice.admin")
@Validated
public record AdminProperties(
        @DefaultValue("admin") String user,
        String password,
        @Valid @DefaultValue Login login) {
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
    public record Login(
            @Min(1) @DefaultValue("5") int maxFailuresPerAddress,
            @Min(1) @DefaultValue("20") int maxFailuresPerUser,

            @DurationMin(nanos = 0, inclusive = false) @DurationMax(days = 1) @DefaultValue("15m")
            Duration window) {
        public Login {
            window = window == null ? Duration.ofMinutes(15) : window;
        }
    }
}
