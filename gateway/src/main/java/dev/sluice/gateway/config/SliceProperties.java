package dev.sluice.gateway.config;

import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Replica slices of the shared provider budgets ({@code sluice.dispatch.slices.*}): with Redis,
 * each replica spends from a slice of requests, tokens and in-flight slots it leases in one call,
 * and sends its settlements in batches, so a call costs no store round trip on its way upstream.
 * Without Redis (one replica, the budget in memory) there is nothing to save and no slice.
 *
 * @param enabled     off: every call acquires and settles on its own (a round trip each way)
 * @param horizon     how much use a slice is sized for, and the longest it is spent from before
 *                    its rest goes back
 * @param slotTtl     how long a replica's held in-flight slots last without renewal: a replica
 *                    that dies frees them after this
 * Settlements go with the next slice call, batched as {@code sluice.store.batch.*} says.
 */
@ConfigurationProperties("sluice.dispatch.slices")
@Validated
public record SliceProperties(
        @DefaultValue("true") boolean enabled,

        @DurationMin(nanos = 0, inclusive = false) @DurationMax(seconds = 10) @DefaultValue("1s")
        Duration horizon,

        @DurationMin(seconds = 1) /* renewed every third of it */ @DefaultValue("10s")
        Duration slotTtl) {}
