package dev.sluice.gateway.tenant;

import java.time.Instant;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What is kept about a tenant's key: never the secret, only its SHA-256 (what
 * authentication looks up), a short id derived from the hash (to name the key in the admin
 * API, e.g. to revoke it), when it was issued, and a hint for people to tell keys apart:
 * {@code sk-sluice-…} and the secret's last four characters, as OpenAI's dashboard shows them.
 * Four characters of a 256-bit random secret (24 bits) leave 232 bits unknown. Keys seeded
 * from tiers.yaml come as hashes only, so their hint is null.
 */
public record TenantKey(String id, String sha256, String hint, Instant createdAt) {
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
    public static final Pattern ID = Pattern.compile("key_[0-9a-f]{12}");

    public TenantKey {
        Objects.requireNonNull(sha256, "sha256");
        Objects.requireNonNull(createdAt, "createdAt");
        if (!SHA256_HEX.matcher(sha256).matches())
            throw new IllegalArgumentException("sha256 must be 64 lower-case hex digits");
        if (!id.equals(idOf(sha256))) throw new IllegalArgumentException("a key's id is derived from its hash");
    }

    /** The key's id: {@code key_} and the first 12 hex digits of its hash. Not secret, stable. */
    public static String idOf(String sha256) {
        return "key_" + sha256.substring(0, 12);
    }

    /** A freshly generated secret's record. */
    public static TenantKey forSecret(String secret, Instant createdAt) {
        String hash = ApiKeys.sha256Hex(secret);
        return new TenantKey(idOf(hash), hash, "sk-sluice-…" + secret.substring(secret.length() - 4), createdAt);
    }

    /** A key known only by its hash (demo tenants). */
    public static TenantKey forHash(String sha256, Instant createdAt) {
        return new TenantKey(idOf(sha256), sha256, null, createdAt);
    }
}
