package dev.sluice.gateway.admin;

import static dev.sluice.gateway.admin.AdminWritesFixture.KNOWN;
import static dev.sluice.gateway.admin.AdminWritesFixture.expect;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.Flag;
import dev.sluice.gateway.abuse.FlagReview;
import dev.sluice.gateway.abuse.FlagStatus;
import dev.sluice.gateway.abuse.ReviewAction;
import dev.sluice.gateway.tenant.Tenant;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a flag review refuses, and how: each field's problem, in order, where what is needed depends on the action. */
class FlagReviewRequestsTest {
    private static final String ACTIONS = "dismiss, confirm-suspend, confirm-move-tier, comment";
    private static final String NOT_VALID = "The review is not valid.";

    private AdminWritesFixture admin;

    @BeforeEach
    void setUp() {
        admin = new AdminWritesFixture();
        admin.tenants.create(new Tenant("acme", "free", false)).block();
        Instant at = Instant.parse("2026-01-01T00:00:00Z");
        admin.flags
                .openIfNone(new Flag("flag_1", "acme", "free", at, at, 15, List.of(), FlagStatus.OPEN, List.of(), null))
                .block();
    }

    @Test
    void anActionIsRequiredAndIsOneOfTheFour() {
        review("{}", "action: is required (" + ACTIONS + ")");
        review("{\"action\":null}", "action: is required (" + ACTIONS + ")");
        review("{\"action\":\"teleport\",\"tier\":\"pro\"}", "action: must be one of " + ACTIONS + ", got 'teleport'");
    }

    @Test
    void anActionThatIsNoneIsNamedBackAsSentOrAsJavaWritesAnotherJsonType() {
        String[][] sentAndNamed = {
            {"\" Dismiss\"", " Dismiss"},
            {"5", "5"},
            {"1.50", "1.5"},
            {"true", "true"},
            {"[\"dismiss\",1]", "[dismiss, 1]"},
            {"{\"a\":1}", "{a=1}"},
            {"\"${1+1}{value}\\\\}\"", "${1+1}{value}\\}"}
        };
        for (String[] c : sentAndNamed)
            review("{\"action\":" + c[0] + "}", "action: must be one of " + ACTIONS + ", got '" + c[1] + "'");
    }

    @Test
    void aDismissalOrACommentNeedsANote() {
        review(
                "{\"action\":\" dismiss \",\"note\":\"  \"}",
                "note: is required to dismiss: say why, for whoever looks next");
        review(
                "{\"action\":\"dismiss\",\"note\":null}",
                "note: is required to dismiss: say why, for whoever looks next");
        review("{\"action\":\"comment\"}", "note: is required to comment: say why, for whoever looks next");
        review(
                "{\"action\":\"dismiss\",\"note\":5}",
                "note: must be a string | note: is required to dismiss: say why, for whoever looks next");
        review("{\"action\":\"confirm-suspend\",\"note\":[\"why\"]}", "note: must be a string");
    }

    @Test
    void aNoteIsAtMost2000CharactersOnceStripped() {
        review(
                "{\"action\":\"confirm-suspend\",\"note\":\"" + "n".repeat(2001) + "\"}",
                "note: must be at most 2000 characters");
        admin.post(
                        "/flags/flag_1/review",
                        "{\"action\":\"confirm-suspend\",\"note\":\" " + "n".repeat(2000) + "\\u2003\"}")
                .expectStatus()
                .isOk();
        assertThat(review().note()).isEqualTo("n".repeat(2000));
        assertThat(admin.tenants.findById("acme").block().suspended()).isTrue();
    }

    @Test
    void aTierIsGivenToMoveTheTenantAndOnlyThen() {
        review(
                "{\"action\":\"confirm-move-tier\"}",
                "tier: is required to confirm-move-tier: the tier to move the tenant to");
        review(
                "{\"action\":\"confirm-move-tier\",\"tier\":\" \"}",
                "tier: is required to confirm-move-tier: the tier to move the tenant to");
        review(
                "{\"action\":\"confirm-move-tier\",\"tier\":5}",
                "tier: is required to confirm-move-tier: the tier to move the tenant to");
        review("{\"action\":\"confirm-move-tier\",\"tier\":\"gold\"}", "tier: unknown tier 'gold' " + KNOWN);
        review(
                "{\"action\":\"dismiss\",\"tier\":5}",
                "note: is required to dismiss: say why, for whoever looks next | tier: is only given with confirm-move-tier");
        review(
                "{\"action\":\"comment\",\"tier\":\"pro\"}",
                "note: is required to comment: say why, for whoever looks next | tier: is only given with confirm-move-tier");
        review("{\"action\":\"confirm-suspend\",\"tier\":\"\"}", "tier: is only given with confirm-move-tier");
    }

    @Test
    void aTierMovesTheTenantTrimmed() {
        admin.post("/flags/flag_1/review", "{\"action\":\"confirm-move-tier\",\"tier\":\" pro \"}")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("confirmed")
                .jsonPath("$.reviews[0].tier")
                .isEqualTo("pro");
        assertThat(review()).satisfies(r -> {
            assertThat(r.action()).isEqualTo(ReviewAction.CONFIRM_MOVE_TIER);
            assertThat(r.tier()).isEqualTo("pro");
            assertThat(r.note()).isEmpty();
        });
        assertThat(admin.tenants.findById("acme").block().tierName()).isEqualTo("pro");
    }

    @Test
    void aNullTierIsNoTier() {
        admin.post("/flags/flag_1/review", "{\"action\":\"dismiss\",\"note\":\" agreed \",\"tier\":null}")
                .expectStatus()
                .isOk();
        assertThat(review()).satisfies(r -> {
            assertThat(r.action()).isEqualTo(ReviewAction.DISMISS);
            assertThat(r.note()).isEqualTo("agreed");
            assertThat(r.tier()).isNull();
        });
    }

    @Test
    void everyProblemIsNamedAtOnceUnknownFieldsFirst() {
        review(
                "{\"tier\":\"pro\",\"x\":1,\"note\":[],\"by\":\"me\"}",
                "x: unknown field (expected one of [action, note, tier]) | by: unknown field (expected one of [action, note, tier]) |"
                        + " action: is required (" + ACTIONS + ") | note: must be a string");
    }

    @Test
    void theBodyIsAJsonObjectCheckedBeforeTheFlagIsLookedUp() {
        expect(admin.post("/flags/flag_1/review", "[]"), 400, "The body must be a JSON object.", "");
        expect(
                admin.post("/flags/flag_1/review", "{\"action\":"),
                400,
                "The body is not valid JSON: Unexpected end-of-input within/between Object entries",
                "");
        expect(admin.post("/flags/flag_nope/review", "{}"), 422, NOT_VALID, "action: is required (" + ACTIONS + ")");
        expect(
                admin.post("/flags/flag_nope/review", "{\"action\":\"confirm-suspend\"}"),
                404,
                "Flag 'flag_nope' not found",
                "");
    }

    private void review(String body, String fields) {
        expect(admin.post("/flags/flag_1/review", body), 422, NOT_VALID, fields);
    }

    private FlagReview review() {
        return admin.flags.find("flag_1").block().reviews().get(0);
    }
}
