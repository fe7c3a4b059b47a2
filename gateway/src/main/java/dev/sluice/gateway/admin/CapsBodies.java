package dev.sluice.gateway.admin;

import static dev.sluice.gateway.admin.Check.Rule.NON_EMPTY_STRING;
import static dev.sluice.gateway.admin.Check.Rule.TENANT_ID;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.sluice.gateway.admin.AdminBodies.SpendOverride;
import dev.sluice.gateway.admin.BodyReader.AsBlank;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.tenant.Organisation;
import dev.sluice.gateway.tenant.TenantKey;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * The bodies of the organisations' writes and of a key's own caps, read as {@link AdminBodies}'
 * are ({@link BodyReader}): the caps a level above or below the tenant carries.
 */
final class CapsBodies {
    private CapsBodies() {}

    /**
     * A shared window of an organisation, as a tier's longer windows are written: at most
     * {@code tokens} (and {@code requests}, absent: no request cap) in any {@code seconds}.
     */
    record WindowBody(
            @NotNull(message = "name is required")
            @Pattern(
                    regexp = "[a-z0-9][a-z0-9_-]{0,31}",
                    message =
                            "name must be 1-32 lower-case letters, digits, '_' or '-', starting with a letter or digit")
            String name,

            @NotNull(message = "seconds is required")
            @Min(value = 60, message = "seconds must be at least 60")
            @Max(value = 31_622_400, message = "seconds must be at most 31622400 (366 days)")
            Long seconds,

            @NotNull(message = "tokens is required")
            @Min(value = 1, message = "tokens must be at least 1")
            @Max(value = MAX_AMOUNT, message = "tokens must be at most 1000000000000000")
            Long tokens,

            @Min(value = 1, message = "requests must be at least 1 (leave it out for no request cap)")
            @Max(value = MAX_AMOUNT, message = "requests must be at most 1000000000000000")
            Long requests) {
        @JsonIgnore
        @AssertTrue(message = "seconds must be a whole number of minutes")
        boolean isWholeMinutes() {
            return seconds == null || seconds < 60 || seconds % 60 == 0;
        }

        WindowLimit limit() {
            return new WindowLimit(name, seconds, tokens, requests == null ? Long.MAX_VALUE : requests);
        }
    }

    /** The largest token or request cap the admin API takes: far above any real one, exact in Lua's doubles. */
    static final long MAX_AMOUNT = 1_000_000_000_000_000L;

    /** POST /organisations. */
    record NewOrganisation(
            @JsonDeserialize(using = AsBlank.class)
            @NotNull(message = "is required")
            @Check({NON_EMPTY_STRING, TENANT_ID})
            String id,

            @Size(max = 200, message = "must be at most 200 characters")
            String name,

            @Size(max = 16, message = "at most 16 windows") List<@Valid WindowBody> windows,

            @Valid SpendOverride spend) {
        @JsonIgnore
        @AssertTrue(message = "window names must differ")
        boolean isEachWindowNamedOnce() {
            return OrganisationChange.distinct(windows);
        }

        Organisation organisation() {
            return new Organisation(
                    id.trim(),
                    name,
                    windows == null
                            ? List.of()
                            : windows.stream().map(WindowBody::limit).toList(),
                    spend == null ? null : spend.budget());
        }
    }

    /** PATCH /organisations/{id}: its name, its windows ({@code []}: none) and/or its spend budgets ({@code {}}: none). */
    record OrganisationChange(
            @Size(max = 200, message = "must be at most 200 characters")
            String name,

            @Size(max = 16, message = "at most 16 windows") List<@Valid WindowBody> windows,

            @Valid SpendOverride spend) {
        @AssertTrue(groups = BodyReader.Whole.class, message = "nothing to change: give name, windows and/or spend")
        boolean isAChange() {
            return name != null || windows != null || spend != null;
        }

        @JsonIgnore
        @AssertTrue(message = "window names must differ")
        boolean isEachWindowNamedOnce() {
            return distinct(windows);
        }

        static boolean distinct(List<WindowBody> windows) {
            if (windows == null) return true;
            List<String> names = windows.stream()
                    .filter(java.util.Objects::nonNull)
                    .map(WindowBody::name)
                    .toList();
            return names.size() == new java.util.HashSet<>(names).size();
        }

        Organisation applyTo(Organisation o) {
            return new Organisation(
                    o.id(),
                    name != null ? name : o.name(),
                    windows != null ? windows.stream().map(WindowBody::limit).toList() : o.windows(),
                    spend != null ? spend.budget() : o.spend());
        }
    }

    /**
     * A key's own caps, when issued (POST /tenants/{id}/keys, body optional) or changed (PATCH
     * /tenants/{id}/keys/{keyId}), named as the key's view names them: {@code tokensPerMinute} and
     * {@code usdPerDay} (0 removes the cap; absent: none when issued, unchanged when changed) and
     * {@code expiresAt} (an ISO-8601 instant; null removes it).
     */
    record KeyCaps(
            @Min(value = 0, message = "must not be negative (0: no cap of its own)")
            @Max(value = MAX_AMOUNT, message = "must be at most 1000000000000000")
            Long tokensPerMinute,

            @DecimalMin(value = "0", message = "must not be negative (0: no cap of its own)")
            @DecimalMax(value = "1000000000", message = "must be at most 1000000000 (USD 1 billion)")
            @Digits(integer = 10, fraction = 6, message = "is finer than a micro-dollar (at most 6 decimals)")
            BigDecimal usdPerDay,

            JsonNode expiresAt) {
        @JsonIgnore
        @AssertTrue(message = "expiresAt: must be an ISO-8601 instant such as 2027-01-31T00:00:00Z, or null")
        boolean isExpiryAnInstant() {
            if (expiresAt == null || expiresAt.isNull()) return true;
            if (!expiresAt.isString()) return false;
            try {
                Instant.parse(expiresAt.asString().trim());
                return true;
            } catch (java.time.format.DateTimeParseException e) {
                return false;
            }
        }

        boolean isAChange() {
            return tokensPerMinute != null || usdPerDay != null || expiresAt != null;
        }

        /** The expiry asked for; null: none (or, where {@code expiresAt} is absent, unchanged). */
        Instant expiry() {
            return expiresAt == null || expiresAt.isNull()
                    ? null
                    : Instant.parse(expiresAt.asString().trim());
        }

        TenantKey applyTo(TenantKey k) {
            return k.with(
                    tokensPerMinute != null ? tokensPerMinute : k.tokensPerMinute(),
                    usdPerDay != null ? usdPerDay.movePointRight(6).longValueExact() : k.usdPerDayMicros(),
                    expiresAt != null ? expiry() : k.expiresAt());
        }
    }
}
