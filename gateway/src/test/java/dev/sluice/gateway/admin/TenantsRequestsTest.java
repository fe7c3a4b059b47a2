package dev.sluice.gateway.admin;

import static dev.sluice.gateway.admin.AdminWritesFixture.KNOWN;
import static dev.sluice.gateway.admin.AdminWritesFixture.expect;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.tenant.InMemoryTenantStore;
import dev.sluice.gateway.tenant.Tenant;
import java.time.ZoneId;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/** What the tenant writes refuse, and how: the status, the code and each field's message. */
class TenantsRequestsTest {
    private AdminWritesFixture admin;
    private InMemoryTenantStore tenants;
    private WebTestClient client;

    @BeforeEach
    void setUp() {
        admin = new AdminWritesFixture();
        tenants = admin.tenants;
        client = admin.client;
        tenants.create(new Tenant("acme", "free", false)).block();
    }

    @Test
    void aNewTenantNeedsItsIdAndTier() {
        post("{}", 422, "The tenant is not valid.", "id: is required | tier: is required");
    }

    @Test
    void everyProblemIsNamedAtOnceUnknownFieldsFirst() {
        post(
                "{\"colour\":\"red\",\"id\":\"Not An Id\",\"tier\":\"gold\",\"suspended\":\"yes\",\"size\":1}",
                422,
                "The tenant is not valid.",
                "colour: unknown field (expected one of [id, suspended, tier]) |"
                        + " size: unknown field (expected one of [id, suspended, tier]) |"
                        + " id: must be 1-64 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit |"
                        + " tier: unknown tier 'gold' " + KNOWN + " |"
                        + " suspended: must be true or false");
    }

    @Test
    void aBlankOrMistypedStringIsNotAValue() {
        post(
                "{\"id\":\"  \",\"tier\":5}",
                422,
                "The tenant is not valid.",
                "id: must be a non-empty string | tier: must be a non-empty string");
        post(
                "{\"id\":{},\"tier\":[\"free\"],\"suspended\":1}",
                422,
                "The tenant is not valid.",
                "id: must be a non-empty string | tier: must be a non-empty string |"
                        + " suspended: must be true or false");
    }

    @Test
    void aValidTenantIsCreatedWithItsFieldsTrimmed() {
        client.post()
                .uri("/tenants")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"id\":\" beta \",\"tier\":\" pro\",\"suspended\":true}")
                .exchange()
                .expectStatus()
                .isCreated()
                .expectBody()
                .json("{\"id\":\"beta\",\"tier\":\"pro\",\"suspended\":true,\"keyCount\":0}", true);
        post("{\"id\":\"beta\",\"tier\":\"free\"}", 409, "A tenant with id 'beta' exists.", "");
    }

    @Test
    void theBodyMustBeAJsonObject() {
        post("[1]", 400, "The body must be a JSON object.", "");
        post("", 400, "The body must be a JSON object.", "");
        client.post()
                .uri("/tenants")
                .contentType(MediaType.TEXT_PLAIN)
                .bodyValue("id=x")
                .exchange()
                .expectStatus()
                .isEqualTo(415)
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("unsupported_media_type");
    }

    @Test
    void aChangeNamesWhatIsWrong() {
        patch(
                "{}",
                422,
                "The change is not valid.",
                "(body): nothing to change: give tier, suspended, spend and/or organisation");
        patch(
                "{\"id\":\"x\",\"tier\":\"gold\",\"suspended\":\"no\"}",
                422,
                "The change is not valid.",
                "id: unknown field (expected one of [organisation, spend, suspended, tier]) |"
                        + " tier: unknown tier 'gold' " + KNOWN + " | suspended: must be true or false");
        patch("{\"tier\":\" \"}", 422, "The change is not valid.", "tier: must be a non-empty string");
    }

    @Test
    void aValidChangeIsSaved() {
        client.patch()
                .uri("/tenants/acme")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"tier\":\"pro \",\"suspended\":null}")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"id\":\"acme\",\"tier\":\"pro\",\"suspended\":false,\"keyCount\":0}", true);
        assertThat(tenants.findById("acme").block()).isEqualTo(new Tenant("acme", "pro", false));
    }

    @Test
    void aTenantsOwnSpendBudgetsAreSetShownAndRemoved() {
        client.patch()
                .uri("/tenants/acme")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"spend\":{\"usd-per-day\":0.5,\"time-zone\":\"Europe/Paris\"}}")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json(
                        "{\"id\":\"acme\",\"tier\":\"free\",\"suspended\":false,\"keyCount\":0,"
                                + "\"spend\":{\"usd-per-day\":0.5,\"usd-per-month\":null,\"time-zone\":\"Europe/Paris\"}}",
                        true);
        assertThat(tenants.findById("acme").block().spend())
                .isEqualTo(new SpendBudget(500_000, 0, ZoneId.of("Europe/Paris")));
        client.patch()
                .uri("/tenants/acme")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"spend\":{}}")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"id\":\"acme\",\"tier\":\"free\",\"suspended\":false,\"keyCount\":0}", true);
        assertThat(tenants.findById("acme").block()).isEqualTo(new Tenant("acme", "free", false));
    }

    @Test
    void aSpendOverrideIsRefusedAsTiersYamlWouldRefuseIt() {
        patch(
                "{\"spend\":{\"usd-per-day\":0,\"usd-per-month\":0.0000001,\"time-zone\":\"Mars/Olympus\"}}",
                422,
                "The change is not valid.",
                "spend: time-zone: unknown time zone 'Mars/Olympus' (an IANA zone id such as UTC or Europe/Paris)"
                        + " | spend: usd-per-day must be above 0 (leave it out to keep the tier's)"
                        + " | spend: usd-per-month is finer than a micro-dollar (at most 6 decimals)");
        patch(
                "{\"spend\":{\"usd-per-week\":1}}",
                422,
                "The change is not valid.",
                "spend: unknown field 'usd-per-week' (expected one of [time-zone, usd-per-day, usd-per-month])");
        patch(
                "{\"spend\":{\"usd-per-day\":\"lots\"}}",
                422,
                "The change is not valid.",
                "spend: usd-per-day: must be a number");
        patch("{\"spend\":5}", 422, "The change is not valid.", "spend: must be an object");
        patch(
                "{\"spend\":{\"usd-per-day\":2000000000}}",
                422,
                "The change is not valid.",
                "spend: usd-per-day must be at most 1000000000 (USD 1 billion)");
        patch(
                "{\"spend\":{\"time-zone\":\"UTC\"}}",
                422,
                "The change is not valid.",
                "spend: a time-zone needs usd-per-day or usd-per-month ({} removes the override)");
        assertThat(tenants.findById("acme").block().spend()).as("nothing saved").isNull();
    }

    @Test
    void onlyJsonsOwnTypesAreTakenNothingIsCoerced() {
        post(
                "{\"id\":true,\"tier\":1.5,\"suspended\":0}",
                422,
                "The tenant is not valid.",
                "id: must be a non-empty string | tier: must be a non-empty string | suspended: must be true or false");
        post(
                "{\"id\":\"x2\",\"tier\":\"free\",\"suspended\":\"true\"}",
                422,
                "The tenant is not valid.",
                "suspended: must be true or false");
        patch(
                "{\"suspended\":\"x\",\"tier\":[]}",
                422,
                "The change is not valid.",
                "tier: must be a non-empty string | suspended: must be true or false");
        patch("{\"tier\":{\"name\":\"pro\"}}", 422, "The change is not valid.", "tier: must be a non-empty string");
    }

    @Test
    void aFieldOnlyOfTheWrongTypeOrUnknownIsNoChangeButOnlyItsOwnProblem() {
        patch("{\"suspended\":\"yes\"}", 422, "The change is not valid.", "suspended: must be true or false");
        patch(
                "{\"colour\":\"red\"}",
                422,
                "The change is not valid.",
                "colour: unknown field (expected one of [organisation, spend, suspended, tier])");
        patch(
                "{\"tier\":null,\"suspended\":null}",
                422,
                "The change is not valid.",
                "(body): nothing to change: give tier, suspended, spend and/or organisation");
    }

    @Test
    void blankIsJavasWhitespaceAndAValueIsTrimmedOfControlCharacters() {
        post(
                "{\"id\":\"\\u2003\",\"tier\":\"\\u2003\"}",
                422,
                "The tenant is not valid.",
                "id: must be a non-empty string | tier: must be a non-empty string");
        post(
                "{\"id\":\"\\u0001\",\"tier\":\"\\u0001\"}",
                422,
                "The tenant is not valid.",
                "id: must be 1-64 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit | tier: unknown tier '' "
                        + KNOWN);
        client.post()
                .uri("/tenants")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"id\":\"\\u0001gamma\\t\",\"tier\":\"\\u001fpro\"}")
                .exchange()
                .expectStatus()
                .isCreated()
                .expectBody()
                .json("{\"id\":\"gamma\",\"tier\":\"pro\",\"suspended\":false,\"keyCount\":0}", true);
    }

    @Test
    void aValueIsNamedBackAsItWasSentNeverInterpreted() {
        post(
                "{\"id\":\"delta\",\"tier\":\"${1+1}{tier}\\\\{x}\"}",
                422,
                "The tenant is not valid.",
                "tier: unknown tier '${1+1}{tier}\\{x}' " + KNOWN);
    }

    @Test
    void aNullIdOrTierIsNotGiven() {
        post("{\"id\":null,\"tier\":\"free\"}", 422, "The tenant is not valid.", "id: is required");
        post("{\"id\":\"x1\",\"tier\":null,\"suspended\":null}", 422, "The tenant is not valid.", "tier: is required");
    }

    @Test
    void aFieldGivenTwiceCountsAsItsLastValue() {
        client.post()
                .uri("/tenants")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"id\":\"x3\",\"tier\":\"free\",\"id\":\"x4\"}")
                .exchange()
                .expectStatus()
                .isCreated()
                .expectBody()
                .jsonPath("$.id")
                .isEqualTo("x4");
    }

    @Test
    void jsonThatDoesNotParseIs400WithTheParsersWords() {
        post("{\"id\": ", 400, "The body is not valid JSON: Unexpected end-of-input within/between Object entries", "");
        post(
                "{\"id\":\"x5\",\"tier\":\"free\"} x",
                400,
                "The body is not valid JSON: Unrecognized token 'x': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')",
                "");
        post(
                "{} {}",
                400,
                "The body is not valid JSON: Trailing token (`JsonToken.START_OBJECT`) found after value (bound as `java.lang.Object`):"
                        + " not allowed as per `DeserializationFeature.FAIL_ON_TRAILING_TOKENS`",
                "");
        post("null", 400, "The body must be a JSON object.", "");
        post("\"id\"", 400, "The body must be a JSON object.", "");
        post("   ", 400, "The body must be a JSON object.", "");
    }

    private void post(String body, int status, String message, String fields) {
        expect(admin.post("/tenants", body), status, message, fields);
    }

    private void patch(String body, int status, String message, String fields) {
        expect(admin.patch("/tenants/acme", body), status, message, fields);
    }
}
