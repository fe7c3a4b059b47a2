package dev.sluice.gateway.abuse;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An account flagged for review: it sat at its ceiling for the run in {@code evidence}.
 *
 * @param tier       the tier it was on when flagged
 * @param runStart   the first minute of the run at the ceiling
 * @param runMinutes the run's length when flagged
 * @param closedAt   when a review closed it (null while open)
 */
public record Flag(
        String id,
        String tenantId,
        String tier,
        Instant openedAt,
        Instant runStart,
        int runMinutes,
        List<UsageSample> evidence,
        FlagStatus status,
        List<FlagReview> reviews,
        Instant closedAt) {
    public Flag {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(tier, "tier");
        Objects.requireNonNull(openedAt, "openedAt");
        Objects.requireNonNull(runStart, "runStart");
        Objects.requireNonNull(status, "status");
        evidence = List.copyOf(evidence);
        reviews = List.copyOf(reviews);
        if ((status == FlagStatus.OPEN) != (closedAt == null))
            throw new IllegalArgumentException("closedAt is set when, and only when, closed");
    }

    public static Flag open(
            String id, String tenantId, String tier, Instant openedAt, CeilingDetector.Finding finding) {
        return new Flag(
                id,
                tenantId,
                tier,
                openedAt,
                Instant.ofEpochMilli(finding.run().startMs()),
                finding.run().minutes(),
                finding.evidence(),
                FlagStatus.OPEN,
                List.of(),
                null);
    }

    public boolean isOpen() {
        return status == FlagStatus.OPEN;
    }

    /** This flag with {@code review} applied; a decision on a closed flag is refused. */
    public Flag reviewed(FlagReview review) {
        FlagStatus next = review.action().result();
        if (next != null && !isOpen()) {
            throw new IllegalStateException(
                    "flag " + id + " is already " + status.wire() + "; only a comment can be added");
        }
        List<FlagReview> all = new ArrayList<>(reviews);
        all.add(review);
        return next == null
                ? new Flag(id, tenantId, tier, openedAt, runStart, runMinutes, evidence, status, all, closedAt)
                : new Flag(id, tenantId, tier, openedAt, runStart, runMinutes, evidence, next, all, review.at());
    }
}
