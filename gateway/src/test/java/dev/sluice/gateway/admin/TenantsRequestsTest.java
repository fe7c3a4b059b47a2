package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.memory.InMemoryUsageHistory;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.tenant.InMemoryTenantStore;
import dev.sluice.gateway.tenant.Tenant;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.server.RouterFunctions;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** What the tenant writes refuse, and how: the status, the code and each field's message. */
class TenantsRequestsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String KNOWN = "(known: enterprise, free, pro)";

    private final InMemoryTenantStore tenants = new InMemoryTenantStore();
    private WebTestClient client;

    @BeforeEach
    void setUp() throws IOException {
        String shipped = Files.readString(Path.of("../tiers.yaml"), StandardCharsets.UTF_8);
        ConfigRegistry config = new ConfigRegistry(TiersYamlParser.parse("tiers.yaml", shipped));
        Clock clock = Clock.systemUTC();
        TenantsHandler handler = new TenantsHandler(tenants, config, new InMemoryUsageHistory(), clock, new AuditLog(clock));
        client = WebTestClient.bindToRouterFunction(RouterFunctions.route()
                .POST("/tenants", handler::create)
                .PATCH("/tenants/{id}", handler::patch)
                .onError(AdminError.class, (e, r) -> AdminResponses.error((AdminError) e))
                .build()).build();
        tenants.create(new Tenant("acme", "free", false)).block();
    }

    @Test
    void aNewTenantNeedsItsIdAndTier() {
        post("{}", 422, "The tenant is not valid.", "id: is required | tier: is required");
    }

    @Test
    void everyProblemIsNamedAtOnceUnknownFieldsFirst() {
        post("{\"colour\":\"red\",\"id\":\"Not An Id\",\"tier\":\"gold\",\"suspended\":\"yes\",\"size\":1}", 422, "The tenant is not valid.",
                "colour: unknown field (expected one of [id, suspended, tier]) |"
                        + " size: unknown field (expected one of [id, suspended, tier]) |"
                        + " id: must be 1-64 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit |"
                        + " tier: unknown tier 'gold' " + KNOWN + " |"
                        + " suspended: must be true or false");
    }

    @Test
    void aBlankOrMistypedStringIsNotAValue() {
        post("{\"id\":\"  \",\"tier\":5}", 422, "The tenant is not valid.",
                "id: must be a non-empty string | tier: must be a non-empty string");
        post("{\"id\":{},\"tier\":[\"free\"],\"suspended\":1}", 422, "The tenant is not valid.",
                "id: must be a non-empty string | tier: must be a non-empty string |"
                        + " suspended: must be true or false");
    }

    @Test
    void aValidTenantIsCreatedWithItsFieldsTrimmed() {
        client.post().uri("/tenants").contentType(MediaType.APPLICATION_JSON).bodyValue("{\"id\":\" beta \",\"tier\":\" pro\",\"suspended\":true}")
                .exchange().expectStatus().isCreated()
                .expectBody().json("{\"id\":\"beta\",\"tier\":\"pro\",\"suspended\":true,\"keyCount\":0}", true);
        post("{\"id\":\"beta\",\"tier\":\"free\"}", 409, "A tenant with id 'beta' exists.", "");
    }

    @Test
    void theBodyMustBeAJsonObject() {
        post("[1]", 400, "The body must be a JSON object.", "");
        post("", 400, "The body must be a JSON object.", "");
        client.post().uri("/tenants").contentType(MediaType.TEXT_PLAIN).bodyValue("id=x").exchange()
                .expectStatus().isEqualTo(415).expectBody().jsonPath("$.error.code").isEqualTo("unsupported_media_type");
    }

    @Test
    void aChangeNamesWhatIsWrong() {
        patch("{}", 422, "The change is not valid.", "(body): nothing to change: give tier and/or suspended");
        patch("{\"id\":\"x\",\"tier\":\"gold\",\"suspended\":\"no\"}", 422, "The change is not valid.",
                "id: unknown field (expected one of [suspended, tier]) |"
                        + " tier: unknown tier 'gold' " + KNOWN + " | suspended: must be true or false");
        patch("{\"tier\":\" \"}", 422, "The change is not valid.", "tier: must be a non-empty string");
    }

    @Test
    void aValidChangeIsSaved() {
        client.patch().uri("/tenants/acme").contentType(MediaType.APPLICATION_JSON).bodyValue("{\"tier\":\"pro \",\"suspended\":null}")
                .exchange().expectStatus().isOk()
                .expectBody().json("{\"id\":\"acme\",\"tier\":\"pro\",\"suspended\":false,\"keyCount\":0}", true);
        assertThat(tenants.findById("acme").block()).isEqualTo(new Tenant("acme", "pro", false));
    }

    private void post(String body, int status, String message, String fields) {
        expect(client.post().uri("/tenants").contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange(), status, message, fields);
    }

    private void patch(String body, int status, String message, String fields) {
        expect(client.patch().uri("/tenants/acme").contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange(), status, message, fields);
    }

    /** {@code fields}: each problem as "field: message", in the answer's order, joined by " | ". */
    private static void expect(WebTestClient.ResponseSpec response, int status, String message, String fields) {
        JsonNode error = JSON.readTree(response.expectStatus().isEqualTo(status).expectBody(String.class).returnResult().getResponseBody())
                .path("error");
        assertThat(error.path("message").asString()).isEqualTo(message);
        List<String> problems = new ArrayList<>();
        error.path("fields").forEach(f -> problems.add(f.path("field").asString() + ": " + f.path("message").asString()));
        assertThat(String.join(" | ", problems)).isEqualTo(fields);
    }
}
