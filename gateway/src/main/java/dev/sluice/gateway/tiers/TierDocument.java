package dev.sluice.gateway.tiers;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Objects;
import org.springframework.util.DigestUtils;

/**
 * The tiers document as stored and shared by every replica: the YAML text exactly as an
 * operator wrote it, and a version that grows by one on every accepted write.
 *
 * @param updatedBy who wrote this version ("tiers.yaml" for the seed)
 */
public record TierDocument(String yaml, long version, String updatedBy, Instant updatedAt) {
    public TierDocument {
        Objects.requireNonNull(yaml, "yaml");
        Objects.requireNonNull(updatedBy, "updatedBy");
        Objects.requireNonNull(updatedAt, "updatedAt");
        if (version < 1) throw new IllegalArgumentException("version starts at 1");
    }

    /**
     * A strong entity tag: the version and a digest of the text, so a store that was reset
     * (memory after a restart) never hands out the tag of a different document.
     */
    public String etag() {
        // A content tag, not a secret: MD5 is enough, and keeps the configuration free of the tenant package.
        return "\"" + version + "-"
                + DigestUtils.md5DigestAsHex(yaml.getBytes(StandardCharsets.UTF_8))
                        .substring(0, 12) + "\"";
    }
}
