package dev.sluice.gateway.tenant;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Tenant keys are random 256-bit secrets, so an unsalted SHA-256 is enough to store them:
 * there is no dictionary to attack, and a fast hash keeps authentication off the hot path's
 * budget. Only the hash is ever stored or compared.
 */
public final class ApiKeys {
    private static final SecureRandom RANDOM = new SecureRandom();

    private ApiKeys() {}

    public static String sha256Hex(String key) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    }

    /** A new key, {@code sk-sluice-} and 43 URL-safe base64 characters. Shown to its owner once. */
    public static String generate() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return "sk-sluice-" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
