package dev.sluice.gateway.drafts;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Objects;
import org.springframework.util.DigestUtils;

/**
 * A saved draft of the whole tiers document, and whether it is in shadow (every live request is
 * also decided against it). {@code version} grows by one on every accepted change of the draft,
 * its text or its shadow switch, so replicas poll one number and a shadow's windows are never
 * those of an earlier draft.
 *
 * @param shadowSince when shadow was turned on (null when off)
 */
public record TierDraft(
        String yaml, long version, String author, Instant savedAt, boolean shadow, Instant shadowSince) {
    public TierDraft {
        Objects.requireNonNull(yaml, "yaml");
        Objects.requireNonNull(author, "author");
        Objects.requireNonNull(savedAt, "savedAt");
        if (version < 1) throw new IllegalArgumentException("version starts at 1");
        if (shadow != (shadowSince != null)) throw new IllegalArgumentException("shadowSince is set iff shadow is on");
    }

    /** A strong tag of this version and text, as {@code TierDocument.etag()} writes it. */
    public String etag() {
        return "\"d" + version + "-"
                + DigestUtils.md5DigestAsHex(yaml.getBytes(StandardCharsets.UTF_8))
                        .substring(0, 12) + "\"";
    }
}
