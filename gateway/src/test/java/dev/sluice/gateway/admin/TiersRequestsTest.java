package dev.sluice.gateway.admin;

import static dev.sluice.gateway.admin.AdminWritesFixture.expect;

import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.json.JsonMapper;

/** The tiers document sent as JSON {"yaml": "..."}: what is refused, and how. */
class TiersRequestsTest {
    private static final String REQUIRED = "is required: the tiers document as a string";

    private AdminWritesFixture admin;

    @BeforeEach
    void setUp() {
        admin = new AdminWritesFixture();
    }

    @Test
    void theDocumentIsAStringInYaml() {
        for (String body : new String[] {
            "{}", "{\"yaml\":null}", "{\"yaml\":5}", "{\"yaml\":[\"tiers:\"]}", "{\"yaml\":{\"tiers\":{}}}"
        }) {
            expect(validate(body), 422, "yaml: " + REQUIRED, "yaml: " + REQUIRED);
        }
        expect(
                validate("{\"yaml\":\"\"}"),
                422,
                "The tiers document has 1 problem; nothing was changed.",
                "(document): is empty");
    }

    @Test
    void otherFieldsAreNotLookedAt() {
        String body = JsonMapper.builder().build().writeValueAsString(Map.of("yaml", admin.shippedTiers, "other", 1));
        validate(body).expectStatus().isOk().expectBody().jsonPath("$.valid").isEqualTo(true);
    }

    @Test
    void theBodyIsAJsonObjectOrYaml() {
        expect(validate("[\"yaml\"]"), 400, "The body must be a JSON object.", "");
        expect(validate(""), 400, "The body must be a JSON object.", "");
        expect(
                validate("{\"yaml\":"),
                400,
                "The body is not valid JSON: Unexpected end-of-input within/between Object entries",
                "");
        expect(
                admin.client
                        .post()
                        .uri("/tiers/validate")
                        .contentType(MediaType.TEXT_PLAIN)
                        .bodyValue("yaml: 1")
                        .exchange(),
                415,
                "Send the tiers document as application/yaml, or as JSON {\"yaml\": \"...\"}.",
                "");
    }

    private WebTestClient.ResponseSpec validate(String body) {
        return admin.post("/tiers/validate", body);
    }
}
