package dev.sluice.gateway.abuse;

import java.time.Instant;
import java.util.Objects;

/**
 * One review of a flag: who (the admin user), when, what, their note, and the tier the
 * tenant was moved to (confirm-move-tier only).
 */
public record FlagReview(String by, Instant at, ReviewAction action, String note, String tier) {
    public FlagReview {
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(action, "action");
        note = note == null ? "" : note.strip();
        if (action == ReviewAction.DISMISS && note.isEmpty())
            throw new IllegalArgumentException("a dismissal needs a note");
        if (action == ReviewAction.COMMENT && note.isEmpty())
            throw new IllegalArgumentException("a comment needs a note");
        if ((action == ReviewAction.CONFIRM_MOVE_TIER) != (tier != null)) {
            throw new IllegalArgumentException("a tier is given with confirm-move-tier, and only then");
        }
    }
}
