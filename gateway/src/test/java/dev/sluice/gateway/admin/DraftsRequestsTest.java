package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.UsageSample;
import dev.sluice.gateway.abuse.memory.InMemoryUsageHistory;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.drafts.DraftShadow;
import dev.sluice.gateway.drafts.InMemoryTierDraftStore;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import dev.sluice.gateway.shadow.ShadowLedger;
import dev.sluice.gateway.shadow.ShadowMinute;
import dev.sluice.gateway.spend.memory.InMemorySpendLedger;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.tenant.InMemoryOrganisationStore;
import dev.sluice.gateway.tenant.InMemoryTenantStore;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tiers.InMemoryTierDocumentStore;
import dev.sluice.gateway.tiers.TierReloader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code /admin/api/tiers/draft}: save, shadow, what-if and promote, over the whole admin router, and every refusal. */
class DraftsRequestsTest {
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final long START = Instant.parse("2001-02-03T04:05:00Z").toEpochMilli();

    /** The shadow's record, as the evaluator would leave it: a list the test fills. */
    static final class LedgerDouble implements ShadowLedger {
        final List<ShadowMinute> minutes = new CopyOnWriteArrayList<>();

        @Override
        public Flux<ShadowMinute> since(long fromMs) {
            return Flux.fromIterable(minutes).filter(m -> m.minuteStartMs() >= fromMs);
        }
    }

    String live;
    String stricter;
    final FakeClock clock = new FakeClock(START);
    final InMemoryTenantStore tenants = new InMemoryTenantStore();
    final InMemoryUsageHistory history = new InMemoryUsageHistory();
    final LedgerDouble ledger = new LedgerDouble();
    final AuditLog audit = new AuditLog(clock);
    final InMemoryTierDraftStore drafts = new InMemoryTierDraftStore();
    DraftShadow shadow;
    WebTestClient client;

    @BeforeEach
    void setUp() throws IOException {
        live = Files.readString(Path.of("../tiers.yaml"), StandardCharsets.UTF_8);
        stricter = live.replaceFirst("tokens-per-minute: 10000\n", "tokens-per-minute: 5000\n");
        assertThat(stricter).isNotEqualTo(live);
        ConfigRegistry config = new ConfigRegistry(TiersYamlParser.parse("tiers.yaml", live));
        InMemoryTierDocumentStore documents = new InMemoryTierDocumentStore(clock);
        TierReloader reloader = new TierReloader(documents, config, "", new SimpleMeterRegistry(), c -> {});
        reloader.start(live, "tiers.yaml", Duration.ofSeconds(1));
        shadow = new DraftShadow(drafts, reloader::parse);
        AdminContext admin =
                new AdminContext(tenants, config, clock, audit, new BodyReader(AdminWritesFixture.validator(config)));
        DraftsHandler handler = new DraftsHandler(
                admin, new TiersHandler(admin, documents, reloader), reloader, drafts, shadow, ledger, history);
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerSingleton("drafts", DraftRoutes.extension(handler));
        client = WebTestClient.bindToRouterFunction(new AdminRoutes()
                        .adminApiRoutes(
                                documents,
                                reloader,
                                tenants,
                                config,
                                history,
                                new dev.sluice.gateway.abuse.memory.InMemoryFlagStore(),
                                new QuotaClock(clock),
                                new InMemoryOrganisationStore(),
                                new QuotaLimiter(
                                        new InMemoryQuotaStore(clock),
                                        null,
                                        Duration.ofSeconds(1),
                                        new SimpleMeterRegistry(),
                                        StoreState.alwaysUp(),
                                        null,
                                        clock,
                                        clock),
                                new OverviewHandler(new SimpleMeterRegistry(), config, clock, Duration.ofMinutes(1)),
                                beans.getBeanProvider(AdminApiExtension.class),
                                audit,
                                AdminWritesFixture.validator(config),
                                new InMemorySpendLedger(clock)))
                .build();
    }

    // ---- saving ------------------------------------------------------------------------------

    @Test
    void aSavedDraftIsReadBackAndLeavesTheLiveDocumentAlone() {
        JsonNode saved = ok(send(HttpMethod.PUT, "/tiers/draft", stricter, Map.of()));
        assertThat(saved.path("version").asLong()).isEqualTo(1);
        assertThat(saved.path("author").asString()).isEqualTo("admin");
        assertThat(saved.path("shadow").asBoolean()).isFalse();
        assertThat(saved.path("config")
                        .path("tiers")
                        .path("free")
                        .path("tokens-per-minute")
                        .asLong())
                .isEqualTo(5000);
        JsonNode read = ok(send(HttpMethod.GET, "/tiers/draft", null, Map.of()));
        assertThat(read.path("yaml").asString()).isEqualTo(stricter);
        assertThat(ok(send(HttpMethod.GET, "/tiers", null, Map.of()))
                        .path("yaml")
                        .asString())
                .isEqualTo(live);
        assertThat(shadow.draft()).as("saved, not in shadow").isNull();
    }

    @Test
    void anInvalidDraftIsRefusedWithTheProblemsPutTiersGives() {
        String bad = "tiers:\n  free:\n    tokens-per-minute: ten\n";
        String draftError = error(send(HttpMethod.PUT, "/tiers/draft", bad, Map.of()), 422);
        String etag = send(HttpMethod.GET, "/tiers", null, Map.of())
                .returnResult(String.class)
                .getResponseHeaders()
                .getETag();
        String liveError = error(send(HttpMethod.PUT, "/tiers", bad, Map.of(HttpHeaders.IF_MATCH, etag)), 422);
        assertThat(draftError).isEqualTo(liveError).contains("tiers.free.tokens-per-minute");
        error(send(HttpMethod.PUT, "/tiers/draft", "tiers: [", Map.of()), 422);
        assertThat(drafts.current().block()).isNull();
    }

    @Test
    void aDraftThatRemovesATierTenantsAreOnIsRefusedAsPutTiersRefusesIt() {
        tenants.create(new Tenant("acme", "enterprise", false)).block();
        String withoutEnterprise = live.substring(0, live.indexOf("  enterprise:\n"))
                + live.substring(
                        live.indexOf("\nladder:") + 1,
                        live.indexOf("\ndemo-tenants:") + 1); // demo tenants are on it too
        assertThat(error(send(HttpMethod.PUT, "/tiers/draft", withoutEnterprise, Map.of()), 422))
                .contains("is removed but tenants are on it (acme)");
    }

    @Test
    void aSaveNamingAnOlderDraftIsRefused() {
        String etag = ok(send(HttpMethod.PUT, "/tiers/draft", stricter, Map.of()))
                .path("etag")
                .asString();
        ok(send(HttpMethod.PUT, "/tiers/draft", stricter, Map.of(HttpHeaders.IF_MATCH, etag)));
        assertThat(error(send(HttpMethod.PUT, "/tiers/draft", live, Map.of(HttpHeaders.IF_MATCH, etag)), 412))
                .contains("The draft changed since you read it (now version 2 by admin)");
        ok(send(HttpMethod.DELETE, "/tiers/draft", null, Map.of()));
        assertThat(error(send(HttpMethod.PUT, "/tiers/draft", live, Map.of(HttpHeaders.IF_MATCH, etag)), 412))
                .contains("none is saved now");
    }

    @Test
    void noDraftReadsAs404AndActionsOnItAs409() {
        assertThat(error(send(HttpMethod.GET, "/tiers/draft", null, Map.of()), 404))
                .contains("no_draft");
        assertThat(error(send(HttpMethod.DELETE, "/tiers/draft", null, Map.of()), 404))
                .contains("no_draft");
        assertThat(error(json("/tiers/draft/shadow", "{\"on\":true}"), 409)).contains("no_draft");
        assertThat(error(send(HttpMethod.POST, "/tiers/draft/promote", null, Map.of(HttpHeaders.IF_MATCH, "*")), 409))
                .contains("no_draft");
        assertThat(error(send(HttpMethod.GET, "/tiers/draft/whatif", null, Map.of()), 404))
                .contains("no_draft");
    }

    @Test
    void aWrongMethodIs405WithWhatIsAllowed() {
        var r = send(HttpMethod.POST, "/tiers/draft", stricter, Map.of());
        r.expectHeader().valueEquals(HttpHeaders.ALLOW, "GET, PUT, DELETE");
        assertThat(error(r, 405)).contains("POST is not allowed here; use GET, PUT, DELETE.");
        assertThat(error(send(HttpMethod.GET, "/tiers/draft/promote", null, Map.of()), 405))
                .contains("use POST");
        assertThat(error(send(HttpMethod.GET, "/tiers/draft/shadow", null, Map.of()), 405))
                .contains("use POST");
        assertThat(error(send(HttpMethod.DELETE, "/tiers/draft/whatif", null, Map.of()), 405))
                .contains("use GET");
    }

    // ---- shadow --------------------------------------------------------------------------------

    @Test
    void shadowOnAndOffReachTheShadowTiersAndAreAudited() {
        ok(send(HttpMethod.PUT, "/tiers/draft", stricter, Map.of()));
        clock.advance(30_000);
        JsonNode on = ok(json("/tiers/draft/shadow", "{\"on\":true}"));
        assertThat(on.path("shadow").asBoolean()).isTrue();
        assertThat(on.path("shadowSince").asString()).isEqualTo(clock.instant().toString());
        assertThat(shadow.draft().tiers().get("free").tokensPerMinute()).isEqualTo(5000);
        assertThat(shadow.draftVersion()).isEqualTo(on.path("version").asLong());
        assertThat(shadow.sinceMs()).isEqualTo(clock.millis());
        ok(json("/tiers/draft/shadow", "{\"on\":false}"));
        assertThat(shadow.draft()).isNull();
        assertThat(shadow.sinceMs()).isZero();
        assertThat(audit.recent(10))
                .extracting(AuditLog.Entry::action)
                .containsExactly("tiers.draft.shadow-off", "tiers.draft.shadow-on", "tiers.draft.saved");
    }

    @Test
    void theShadowSwitchTakesABoolean() {
        ok(send(HttpMethod.PUT, "/tiers/draft", stricter, Map.of()));
        assertThat(error(json("/tiers/draft/shadow", "{}"), 422)).contains("on: is required: true or false");
        assertThat(error(json("/tiers/draft/shadow", "{\"on\":"), 400)).contains("not valid JSON");
        assertThat(error(
                        client.post()
                                .uri("/admin/api/tiers/draft/shadow")
                                .contentType(MediaType.TEXT_PLAIN)
                                .bodyValue("on")
                                .exchange(),
                        415))
                .contains("Content-Type: application/json");
    }

    // ---- promote -------------------------------------------------------------------------------

    @Test
    void promoteNeedsTheLiveEtagAndRefusesAStaleOne() {
        ok(send(HttpMethod.PUT, "/tiers/draft", stricter, Map.of()));
        assertThat(error(send(HttpMethod.POST, "/tiers/draft/promote", null, Map.of()), 428))
                .contains("ETag of the live tiers document");
        String draftEtag = ok(send(HttpMethod.GET, "/tiers/draft", null, Map.of()))
                .path("etag")
                .asString();
        var stale = send(HttpMethod.POST, "/tiers/draft/promote", null, Map.of(HttpHeaders.IF_MATCH, draftEtag));
        String liveEtag =
                ok(send(HttpMethod.GET, "/tiers", null, Map.of())).path("etag").asString();
        stale.expectHeader().valueEquals(HttpHeaders.ETAG, liveEtag);
        assertThat(error(stale, 412)).contains("The tiers document changed since you read it");
        assertThat(ok(send(HttpMethod.GET, "/tiers", null, Map.of()))
                        .path("yaml")
                        .asString())
                .isEqualTo(live);
    }

    @Test
    void promoteAppliesTheDraftThroughPutTiersAndEndsTheShadow() {
        ok(send(HttpMethod.PUT, "/tiers/draft", stricter, Map.of()));
        ok(json("/tiers/draft/shadow", "{\"on\":true}"));
        JsonNode before = ok(send(HttpMethod.GET, "/tiers", null, Map.of()));
        var promoted = send(
                HttpMethod.POST,
                "/tiers/draft/promote",
                null,
                Map.of(HttpHeaders.IF_MATCH, before.path("etag").asString()));
        JsonNode doc = ok(promoted);
        assertThat(doc.path("version").asLong())
                .isEqualTo(before.path("version").asLong() + 1);
        assertThat(doc.path("yaml").asString()).isEqualTo(stricter);
        assertThat(doc.path("appliedHere").asBoolean()).isTrue();
        assertThat(ok(send(HttpMethod.GET, "/tiers", null, Map.of()))
                        .path("config")
                        .path("tiers")
                        .path("free")
                        .path("tokens-per-minute")
                        .asLong())
                .isEqualTo(5000);
        assertThat(error(send(HttpMethod.GET, "/tiers/draft", null, Map.of()), 404))
                .contains("no_draft");
        assertThat(shadow.draft()).isNull();
        AuditLog.Entry last = audit.recent(1).get(0);
        assertThat(last.action()).isEqualTo("tiers.draft.promoted");
        assertThat(last.details()).isEqualTo(new AuditLog.DraftPromoted(2, 1, 2));
    }

    // ---- what-if -------------------------------------------------------------------------------

    @Test
    void minutesOutsideOneToADayAreRefused() {
        ok(send(HttpMethod.PUT, "/tiers/draft", stricter, Map.of()));
        for (String m : List.of("0", "-1", "1441", "99999999999999999999", "ten")) {
            assertThat(error(send(HttpMethod.GET, "/tiers/draft/whatif?minutes=" + m, null, Map.of()), 422))
                    .contains("minutes: must be");
        }
        ok(send(HttpMethod.GET, "/tiers/draft/whatif?minutes=1440", null, Map.of()));
        ok(send(HttpMethod.GET, "/tiers/draft/whatif?minutes=1", null, Map.of()));
    }

    @Test
    void inShadowTheWhatIfSumsTheLedgersMinutesOfThisDraftSinceShadowBegan() {
        ok(send(HttpMethod.PUT, "/tiers/draft", stricter, Map.of()));
        clock.advance(10 * 60_000L);
        long version =
                ok(json("/tiers/draft/shadow", "{\"on\":true}")).path("version").asLong();
        long since = clock.millis();
        ledger.minutes.add(minute(since - 120_000, "before-shadow", version, 0, 50)); // before since: left out
        ledger.minutes.add(minute(since, "acme", version - 1, 0, 40)); // an older draft: left out
        ledger.minutes.add(minute(since, "acme", version, 1, 4));
        ledger.minutes.add(minute(since + 60_000, "globex", version, 0, 2));
        ledger.minutes.add(minute(since + 60_000, "acme", version, 0, 1));
        clock.advance(2 * 60_000L + 5_000);
        JsonNode w = ok(send(HttpMethod.GET, "/tiers/draft/whatif?minutes=60", null, Map.of()));
        assertThat(w.path("source").asString()).isEqualTo("shadow");
        assertThat(w.path("exact").asBoolean()).isTrue();
        assertThat(w.path("from").asString())
                .isEqualTo(Instant.ofEpochMilli(since).toString());
        assertThat(w.path("live").path("rejected").asLong()).isEqualTo(1);
        assertThat(w.path("draft").path("rejected").asLong()).isEqualTo(7);
        assertThat(w.path("tenants").get(0).path("tenant").asString()).isEqualTo("acme");
        assertThat(w.path("tenants").get(0).path("draft").path("rejected").asLong())
                .isEqualTo(5);
        assertThat(w.path("tenants").get(1).path("tenant").asString()).isEqualTo("globex");
        assertThat(w.path("perMinute")).hasSize(3);
        assertThat(w.path("perMinute").get(1).path("draft").asLong()).isEqualTo(3);
    }

    @Test
    void withoutShadowDataTheWhatIfIsTheReplaysEstimateAndSaysSo() {
        tenants.create(new Tenant("acme", "free", false)).block();
        long minute = START - 5 * 60_000L;
        // 8 requests of 1000 tokens in a minute: free's 10000 admits them, the draft's 5000 only 5.
        history.append(
                        "acme",
                        new UsageSample(minute, "free", 8000, 8, 0.8, "minute", Map.of("passed", 8L), null),
                        1440)
                .block();
        ok(send(HttpMethod.PUT, "/tiers/draft", stricter, Map.of()));
        ok(json("/tiers/draft/shadow", "{\"on\":true}")); // on, but nothing recorded yet
        JsonNode w = ok(send(HttpMethod.GET, "/tiers/draft/whatif?minutes=10", null, Map.of()));
        assertThat(w.path("source").asString()).isEqualTo("replay");
        assertThat(w.path("exact").asBoolean()).isFalse();
        assertThat(w.path("exactness").asString()).contains("per-minute usage samples");
        assertThat(w.path("live").path("rejected").asLong()).isZero();
        assertThat(w.path("draft").path("rejected").asLong()).isEqualTo(3);
        assertThat(w.path("tenants").get(0).path("tenant").asString()).isEqualTo("acme");
        assertThat(w.path("perMinute")).as("ten minutes, the current one last").hasSize(10);
    }

    static ShadowMinute minute(long at, String tenant, long version, long liveRejected, long draftRejected) {
        return new ShadowMinute(
                at,
                tenant,
                "free",
                version,
                Map.of("passed", 10L - liveRejected, "rejected", liveRejected),
                Map.of("passed", Math.max(0, 10L - draftRejected), "rejected", draftRejected));
    }

    // ---- calling -------------------------------------------------------------------------------

    WebTestClient.ResponseSpec send(HttpMethod method, String path, String yaml, Map<String, String> headers) {
        WebTestClient.RequestBodySpec spec = client.method(method).uri("/admin/api" + path);
        headers.forEach(spec::header);
        if (yaml == null) return spec.exchange();
        return spec.contentType(AdminRequests.YAML).bodyValue(yaml).exchange();
    }

    WebTestClient.ResponseSpec json(String path, String body) {
        return client.post()
                .uri("/admin/api" + path)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange();
    }

    static JsonNode ok(WebTestClient.ResponseSpec r) {
        String body = r.expectStatus()
                .is2xxSuccessful()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
        return body == null ? JSON.createObjectNode() : JSON.readTree(body);
    }

    static String error(WebTestClient.ResponseSpec r, int status) {
        return r.expectStatus()
                .isEqualTo(status)
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
    }
}
