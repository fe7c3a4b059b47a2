package dev.sluice.gateway.admin;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The admin API's credentials, from the environment: {@code SLUICE_ADMIN_USER} (default
 * {@code admin}) and {@code SLUICE_ADMIN_PASSWORD} (unset: one is generated at start and
 * logged once).
 */
@ConfigurationProperties("sluice.admin")
public record AdminProperties(String user, String password) {
    public AdminProperties {
        user = user == null || user.isBlank() ? "admin" : user.trim();
        password = password == null ? "" : password;
    }
}
