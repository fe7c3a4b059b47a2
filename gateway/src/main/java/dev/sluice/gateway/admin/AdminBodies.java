package dev.sluice.gateway.admin;

import static dev.sluice.gateway.admin.Check.Rule.KNOWN_TIER;
import static dev.sluice.gateway.admin.Check.Rule.NON_EMPTY_STRING;
import static dev.sluice.gateway.admin.Check.Rule.REVIEW_ACTION;
import static dev.sluice.gateway.admin.Check.Rule.TENANT_ID;
import static dev.sluice.gateway.admin.Check.Rule.TIME_ZONE;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.sluice.gateway.abuse.FlagReview;
import dev.sluice.gateway.abuse.ReviewAction;
import dev.sluice.gateway.admin.BodyReader.AsBlank;
import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.tenant.Tenant;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Null;
import jakarta.validation.constraints.Size;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.PropertyNamingStrategies.KebabCaseStrategy;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.annotation.JsonNaming;

/**
 * What each admin write takes as its JSON body: a record {@link BodyReader} binds and checks.
 * A field holds what was sent (null: not given); names are trimmed where they are used. Where a
 * non-empty string is wanted, a value of another JSON type reads as blank, so it is refused in
 * the same words.
 */
final class AdminBodies {
    private AdminBodies() {}

    /** POST /tenants. */
    record NewTenant(
            @JsonDeserialize(using = AsBlank.class)
            @NotNull(message = "is required")
            @Check({NON_EMPTY_STRING, TENANT_ID})
            String id,

            @JsonDeserialize(using = AsBlank.class)
            @NotNull(message = "is required")
            @Check({NON_EMPTY_STRING, KNOWN_TIER})
            String tier,

            Boolean suspended) {
        Tenant tenant() {
            return new Tenant(id.trim(), tier.trim(), Boolean.TRUE.equals(suspended));
        }
    }

    /**
     * PATCH /tenants/{id}: its tier, whether it is suspended, its own spend budgets, and/or its
     * organisation ({@code "acme"} joins it, {@code null} leaves any; absent: unchanged). A JSON null
     * and an absent field differ here only, so it is read as a node: absent is Java null, null a NullNode.
     */
    record TenantChange(
            @JsonDeserialize(using = AsBlank.class) @Check({NON_EMPTY_STRING, KNOWN_TIER})
            String tier,

            Boolean suspended,

            @Valid SpendOverride spend,

            JsonNode organisation) {
        @AssertTrue(
                groups = BodyReader.Whole.class,
                message = "nothing to change: give tier, suspended, spend and/or organisation")
        boolean isAChange() {
            return tier != null || suspended != null || spend != null || organisation != null;
        }

        @JsonIgnore
        @AssertTrue(message = "organisation: must be an organisation's id, or null to leave it")
        boolean isOrganisationAnId() {
            return organisation == null
                    || organisation.isNull()
                    || (organisation.isString()
                            && TiersYamlParser.NAME
                                    .matcher(organisation.asString().trim())
                                    .matches());
        }

        /** Whether the body says anything about the organisation. */
        boolean changesOrganisation() {
            return organisation != null;
        }

        /** The organisation asked for: null to leave (only meaningful where {@link #changesOrganisation}). */
        String organisationId() {
            return organisation == null || organisation.isNull()
                    ? null
                    : organisation.asString().trim();
        }

        Tenant applyTo(Tenant t) {
            return new Tenant(
                    t.id(),
                    tier != null ? tier.trim() : t.tierName(),
                    suspended != null ? suspended : t.suspended(),
                    spend != null ? spend.budget() : t.spend(),
                    changesOrganisation() ? organisationId() : t.organisation());
        }
    }

    /**
     * A tenant's own spend budgets, as tiers.yaml's {@code spend:} writes them. A period it leaves
     * out keeps the tier's budget for that period; {@code {}} removes the override (the tier's
     * budgets again). Amounts in USD, exact to the micro-dollar.
     */
    @JsonNaming(KebabCaseStrategy.class)
    record SpendOverride(
            @DecimalMin(
                    value = "0",
                    inclusive = false,
                    message = "usd-per-day must be above 0 (leave it out to keep the tier's)")
            @DecimalMax(value = "1000000000", message = "usd-per-day must be at most 1000000000 (USD 1 billion)")
            @Digits(
                    integer = 10,
                    fraction = 6,
                    message = "usd-per-day is finer than a micro-dollar (at most 6 decimals)")
            BigDecimal usdPerDay,

            @DecimalMin(
                    value = "0",
                    inclusive = false,
                    message = "usd-per-month must be above 0 (leave it out to keep the tier's)")
            @DecimalMax(value = "1000000000", message = "usd-per-month must be at most 1000000000 (USD 1 billion)")
            @Digits(
                    integer = 10,
                    fraction = 6,
                    message = "usd-per-month is finer than a micro-dollar (at most 6 decimals)")
            BigDecimal usdPerMonth,

            @Check(TIME_ZONE) String timeZone) {
        @JsonIgnore
        @AssertTrue(message = "a time-zone needs usd-per-day or usd-per-month ({} removes the override)")
        boolean isZoneOfABudget() {
            return timeZone == null || usdPerDay != null || usdPerMonth != null;
        }

        /** The override; null for {@code {}}. Only called once the fields are valid. */
        SpendBudget budget() {
            if (usdPerDay == null && usdPerMonth == null) return null;
            return new SpendBudget(
                    micros(usdPerDay),
                    micros(usdPerMonth),
                    timeZone == null || timeZone.isBlank() ? SpendBudget.UTC : ZoneId.of(timeZone.trim()));
        }

        private static long micros(BigDecimal usd) {
            return usd == null ? 0 : usd.movePointRight(6).longValueExact();
        }
    }

    /**
     * POST /flags/{id}/review. What else it needs depends on the action (its groups): a note to
     * dismiss or comment, a tier to move the tenant to and no tier otherwise. The note is kept,
     * and measured, stripped.
     */
    record Review(
            @JsonDeserialize(using = BodyReader.AsText.class) @Check(REVIEW_ACTION)
            String action,

            @Size(max = 2000, message = "must be at most 2000 characters")
            @NotBlank(groups = Dismisses.class, message = "is required to dismiss: say why, for whoever looks next")
            @NotBlank(groups = Comments.class, message = "is required to comment: say why, for whoever looks next")
            String note,

            @JsonDeserialize(using = AsBlank.class)
            @NotBlank(
                    groups = MovesTier.class,
                    message = "is required to confirm-move-tier: the tier to move the tenant to")
            @Check(value = KNOWN_TIER, groups = MovesTier.class)
            @Null(groups = KeepsTier.class, message = "is only given with confirm-move-tier")
            String tier)
            implements BodyReader.Conditional {
        interface Dismisses {}

        interface Comments {}

        interface MovesTier {}

        interface KeepsTier {}

        Review {
            note = note == null ? null : note.strip();
        }

        /** The action; null when the body names none of them. */
        ReviewAction decision() {
            return action == null ? null : ReviewAction.of(action.trim());
        }

        @Override
        public List<Class<?>> groups() {
            ReviewAction decision = decision();
            if (decision == null) return List.of();
            return switch (decision) {
                case DISMISS -> List.of(Dismisses.class, KeepsTier.class);
                case COMMENT -> List.of(Comments.class, KeepsTier.class);
                case CONFIRM_SUSPEND -> List.of(KeepsTier.class);
                case CONFIRM_MOVE_TIER -> List.of(MovesTier.class);
            };
        }

        FlagReview by(String admin, Instant at) {
            ReviewAction decision = decision();
            return new FlagReview(
                    admin, at, decision, note, decision == ReviewAction.CONFIRM_MOVE_TIER ? tier.trim() : null);
        }
    }

    /** The tiers document sent as JSON: the object only carries the YAML text, so nothing else in it is looked at. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record TiersDocument(
            @JsonDeserialize(using = BodyReader.AsAbsent.class)
            @NotNull(message = "is required: the tiers document as a string")
            String yaml) {}
}
