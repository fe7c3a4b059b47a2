package dev.sluice.gateway.admin;

import dev.sluice.gateway.config.AdminProperties;
import dev.sluice.gateway.tenant.ApiKeys;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one admin account. The password is compared as SHA-256 digests in constant time: it
 * comes from the environment (or is generated, 144 random bits), not from people choosing
 * weak words, so a slow hash would only cost every admin request its time on a CPU.
 */
public final class AdminCredentials {
    private static final Logger log = LoggerFactory.getLogger(AdminCredentials.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String user;
    private final byte[] passwordDigest;
    private final boolean generated;

    private AdminCredentials(String user, String password, boolean generated) {
        this.user = user;
        this.passwordDigest = digest(password);
        this.generated = generated;
    }

    /** The configured credentials, or the user with a generated password, logged once at WARN. */
    public static AdminCredentials from(AdminProperties props) {
        if (!props.password().isEmpty()) return new AdminCredentials(props.user(), props.password(), false);
        byte[] bytes = new byte[18];
        RANDOM.nextBytes(bytes);
        String password = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        log.warn(
                "No SLUICE_ADMIN_PASSWORD set: the admin API (/admin/api) accepts user '{}' with the generated password {} "
                        + "until this process stops. Set SLUICE_ADMIN_USER and SLUICE_ADMIN_PASSWORD to choose them.",
                props.user(),
                password);
        return new AdminCredentials(props.user(), password, true);
    }

    public String user() {
        return user;
    }

    public boolean generated() {
        return generated;
    }

    public boolean matches(String user, String password) {
        boolean userOk = MessageDigest.isEqual(digest(user), digest(this.user));
        boolean passwordOk = MessageDigest.isEqual(digest(password), passwordDigest);
        return userOk & passwordOk;
    }

    private static byte[] digest(String s) {
        return ApiKeys.sha256Hex(s == null ? "" : s).getBytes(StandardCharsets.US_ASCII);
    }
}
