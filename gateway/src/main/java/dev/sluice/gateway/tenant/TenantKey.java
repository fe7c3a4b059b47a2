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
 *
 * <p>A key may carry its own caps, below its tenant's: at most {@code tokensPerMinute} tokens in
 * any 60 s and {@code usdPerDayMicros} per calendar day (0: no cap of its own), charged in the same
 * atomic step as its tenant's windows ({@code quota/QuotaScope}); and an expiry, after which it
 * authenticates nothing (401 {@code key_expired}).
 *
 * @param expiresAt when it stops working; null: never
 */
public record TenantKey(
        String id,
        String sha256,
        String hint,
        Instant createdAt,
        long tokensPerMinute,
        long usdPerDayMicros,
        Instant expiresAt) {
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
    public static final Pattern ID = Pattern.compile("key_[0-9a-f]{12}");

    public TenantKey {
        Objects.requireNonNull(sha256, "sha256");
        Objects.requireNonNull(createdAt, "createdAt");
        if (!SHA256_HEX.matcher(sha256).matches())
            throw new IllegalArgumentException("sha256 must be 64 lower-case hex digits");
        if (!id.equals(idOf(sha256))) throw new IllegalArgumentException("a key's id is derived from its hash");
        if (tokensPerMinute < 0 || usdPerDayMicros < 0)
            throw new IllegalArgumentException("a key's caps must not be negative");
    }

    /** A key with no caps of its own and no expiry. */
    public TenantKey(String id, String sha256, String hint, Instant createdAt) {
        this(id, sha256, hint, createdAt, 0, 0, null);
    }

    /** Whether it has expired at {@code now}. */
    public boolean expiredAt(Instant now) {
        return expiresAt != null && !now.isBefore(expiresAt);
    }

    /** Whether it caps anything of its own. */
    public boolean caps() {
        return tokensPerMinute > 0 || usdPerDayMicros > 0;
    }

    /** The same key with these caps and expiry. */
    public TenantKey with(long tokensPerMinute, long usdPerDayMicros, Instant expiresAt) {
        return new TenantKey(id, sha256, hint, createdAt, tokensPerMinute, usdPerDayMicros, expiresAt);
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
