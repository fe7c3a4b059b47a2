package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.memory.InMemoryFlagStore;
import dev.sluice.gateway.abuse.memory.InMemoryUsageHistory;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.tenant.InMemoryTenantStore;
import dev.sluice.gateway.tiers.InMemoryTierDocumentStore;
import dev.sluice.gateway.tiers.TierReloader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.validation.Validator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.validation.MessageInterpolatorFactory;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.validation.beanvalidation.LocalValidatorFactoryBean;
import org.springframework.web.reactive.function.server.RouterFunctions;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The admin handlers that read a body (tenants, flag reviews, the tiers document) over in-memory
 * stores and the shipped tiers.yaml, routed as the admin API routes them, without its security;
 * and how a refusal reads.
 */
final class AdminWritesFixture {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** The shipped tiers, as an unknown tier's problem lists them. */
    static final String KNOWN = "(known: enterprise, free, pro)";

    final String shippedTiers = read(Path.of("../tiers.yaml"));
    final ConfigRegistry config = new ConfigRegistry(TiersYamlParser.parse("tiers.yaml", shippedTiers));
    final Clock clock = Clock.systemUTC();
    final InMemoryTenantStore tenants = new InMemoryTenantStore();
    final InMemoryFlagStore flags = new InMemoryFlagStore();
    final WebTestClient client;

    AdminWritesFixture() {
        AdminContext admin =
                new AdminContext(tenants, config, clock, new AuditLog(clock), new BodyReader(validator(config)));
        TenantsHandler tenantsHandler = new TenantsHandler(admin, new InMemoryUsageHistory());
        FlagsHandler flagsHandler = new FlagsHandler(admin, flags);
        InMemoryTierDocumentStore documents = new InMemoryTierDocumentStore(clock);
        TierReloader reloader = new TierReloader(documents, config, "", new SimpleMeterRegistry(), c -> {});
        reloader.start(shippedTiers, "tiers.yaml", Duration.ofSeconds(1));
        TiersHandler tiersHandler = new TiersHandler(admin, documents, reloader);
        client = WebTestClient.bindToRouterFunction(RouterFunctions.route()
                        .POST("/tenants", tenantsHandler::create)
                        .PATCH("/tenants/{id}", tenantsHandler::patch)
                        .POST("/flags/{id}/review", flagsHandler::review)
                        .POST("/tiers/validate", tiersHandler::validate)
                        .onError(AdminError.class, (e, r) -> AdminResponses.error((AdminError) e))
                        .build())
                .build();
    }

    /**
     * The validator as Spring Boot makes it: its constraint validators get their beans (here the
     * configuration), and messages go through Boot's interpolator.
     */
    static Validator validator(ConfigRegistry config) {
        GenericApplicationContext beans = new GenericApplicationContext();
        beans.registerBean(ConfigRegistry.class, () -> config);
        beans.refresh();
        LocalValidatorFactoryBean validator = new LocalValidatorFactoryBean();
        validator.setApplicationContext(beans);
        validator.setMessageInterpolator(new MessageInterpolatorFactory(beans).getObject());
        validator.afterPropertiesSet();
        return validator;
    }

    WebTestClient.ResponseSpec post(String uri, String json) {
        return client.post()
                .uri(uri)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(json)
                .exchange();
    }

    WebTestClient.ResponseSpec patch(String uri, String json) {
        return client.patch()
                .uri(uri)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(json)
                .exchange();
    }

    /** {@code fields}: each problem as "field: message", in the answer's order, joined by " | ". */
    static void expect(WebTestClient.ResponseSpec response, int status, String message, String fields) {
        JsonNode error = JSON.readTree(response.expectStatus()
                        .isEqualTo(status)
                        .expectBody(String.class)
                        .returnResult()
                        .getResponseBody())
                .path("error");
        assertThat(error.path("message").asString()).isEqualTo(message);
        List<String> problems = new ArrayList<>();
        error.path("fields")
                .forEach(f -> problems.add(
                        f.path("field").asString() + ": " + f.path("message").asString()));
        assertThat(String.join(" | ", problems)).isEqualTo(fields);
    }

    private static String read(Path path) {
        try {
            return Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
