package dev.sluice.gateway.spend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.testsupport.TestTiers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Spend as operators and tenants see it, through the whole gateway over real HTTP on an injected
 * clock: calls settled either side of midnight UTC land in their own ledger days; the tenant reads
 * its budgets and totals at {@code GET /v1/sluice/usage} for free; the admin API shows the budgets
 * and the 30-day series, and the month's CSV equals the provider's own bill (its reported usage at
 * its prices); budget refusals and utilisation reach the meters. Run in memory and on Redis.
 */
abstract class SpendViewContract {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /**
     * The two days the calls straddle: today (UTC) and tomorrow, or tomorrow and the day after on a
     * month's last day, so both are in one month. Not fixed dates: Redis keeps a period's counter to
     * the period's end on its own clock, the real one, so days fixed in the test expire as they are
     * written once the real date has passed them (this contract broke on 8 December 2026 so).
     */
    static final LocalDate DAY1 = firstDay(LocalDate.now(ZoneOffset.UTC));

    static final LocalDate DAY2 = DAY1.plusDays(1);
    static final String MONTH = YearMonth.from(DAY1).toString();
    static final long BEFORE_MIDNIGHT =
            DAY2.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli() - 60_000;
    static final long AFTER_MIDNIGHT =
            DAY2.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli() + 1_000;

    static LocalDate firstDay(LocalDate today) {
        return today.plusDays(1).getMonthValue() == today.getMonthValue() ? today : today.plusDays(1);
    }

    static final FakeClock CLOCK = new FakeClock(BEFORE_MIDNIGHT);
    static final long PROMPT = 17;
    private static final Pattern MAX_TOKENS = Pattern.compile("\"max_tokens\":(\\d+)");

    @TestConfiguration
    static class Clocks {
        @Bean
        @Primary
        QuotaClock fakeClock() {
            return new QuotaClock(CLOCK);
        }
    }

    /** The class's upstream: its own, since an upstream stops with its class. */
    abstract FakeUpstreamExtension upstream();

    /** Answers each call with 17 prompt tokens and as many output tokens as its max_tokens. */
    static FakeUpstreamExtension upstreamExtension() {
        return FakeUpstreamExtension.start((req, res) -> {
                    long out = output(req);
                    return res.header("content-type", "application/json")
                            .sendString(Mono.just("{\"id\":\"c1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\","
                                    + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},"
                                    + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":" + PROMPT
                                    + ",\"completion_tokens\":" + out + ",\"total_tokens\":" + (PROMPT + out) + "}}"));
                })
                .clearedBeforeEachTest();
    }

    static long output(FakeUpstream.Recorded req) {
        Matcher m = MAX_TOKENS.matcher(req.body());
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** The provider's own bill for a call: input at $1 and output at $10 per million tokens, in micro-dollars. */
    static long billed(FakeUpstream.Recorded req) {
        return PROMPT + output(req) * 10;
    }

    static void properties(DynamicPropertyRegistry registry, FakeUpstreamExtension upstream) throws IOException {
        registry.add("sluice.provider.url", upstream::baseUrl);
        String tiers = TestTiers.written("spend-view/tiers.yaml", """
                tiers:
                  metered:
                    tokens-per-minute: 100000
                    requests-per-minute: 600
                    priority: 2
                    spend: {usd-per-day: 5, usd-per-month: 50, time-zone: UTC}
                  tight:
                    tokens-per-minute: 100000
                    requests-per-minute: 600
                    priority: 1
                    spend: {usd-per-day: 0.001, time-zone: UTC}
                providers:
                  - name: default
                    models:
                      "*":
                        requests-per-minute: 1500
                        tokens-per-minute: 300000
                        max-in-flight: 200
                        price-per-million-input-tokens: 1
                        price-per-million-output-tokens: 10
                """);
        registry.add("sluice.tiers.path", () -> tiers);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    SpendLedger ledger;

    @Autowired
    MeterRegistry meters;

    @Autowired
    BudgetGauges gauges;

    record Answer(int status, HttpHeaders headers, String body) {
        JsonNode json() {
            return JSON.readTree(body);
        }
    }

    WebClient client() {
        return WebClient.builder().baseUrl("http://127.0.0.1:" + port).build();
    }

    WebClient admin() {
        return WebClient.builder()
                .baseUrl("http://127.0.0.1:" + port)
                .defaultHeaders(h -> h.setBasicAuth("ops", "spend view test"))
                .build();
    }

    static Mono<Answer> answer(org.springframework.web.reactive.function.client.ClientResponse r) {
        return r.bodyToMono(String.class)
                .defaultIfEmpty("")
                .map(body -> new Answer(r.statusCode().value(), r.headers().asHttpHeaders(), body));
    }

    Answer chat(TestTenants.Created who, int maxTokens) {
        return client().post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + who.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"gpt-4o\",\"max_tokens\":" + maxTokens
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchangeToMono(SpendViewContract::answer)
                .block(Duration.ofSeconds(30));
    }

    Answer tenantCall(String method, String path, String key) {
        return client().method(org.springframework.http.HttpMethod.valueOf(method))
                .uri(path)
                .headers(h -> {
                    if (key != null) h.setBearerAuth(key);
                })
                .exchangeToMono(SpendViewContract::answer)
                .block(Duration.ofSeconds(30));
    }

    Answer adminSend(String method, String path, String json) {
        return admin().method(org.springframework.http.HttpMethod.valueOf(method))
                .uri(path)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(json)
                .exchangeToMono(SpendViewContract::answer)
                .block(Duration.ofSeconds(30));
    }

    Answer adminGet(String path) {
        return admin().get().uri(path).exchangeToMono(SpendViewContract::answer).block(Duration.ofSeconds(30));
    }

    /** Waits until the tenant's ledger holds {@code requests} settled requests (the settlement follows the answer). */
    void settled(String tenant, long requests) {
        await().atMost(Duration.ofSeconds(10))
                .until(
                        () -> ledger.days(
                                        tenant,
                                        YearMonth.from(DAY1).atDay(1),
                                        YearMonth.from(DAY1).atEndOfMonth())
                                .map(d -> d.totals().requests())
                                .reduce(0L, Long::sum)
                                .block(),
                        n -> n == requests);
    }

    @Test
    void callsEitherSideOfMidnightUtcLandInTheirDaysAndTheTenantAndOperatorSeeThem() {
        CLOCK.set(BEFORE_MIDNIGHT);
        TestTenants.Created t = TestTenants.create(tenants, "viewer", "metered");
        for (int max : new int[] {100, 200, 300})
            assertThat(chat(t, max).status()).isEqualTo(200);
        settled(t.id(), 3);
        CLOCK.set(AFTER_MIDNIGHT);
        for (int max : new int[] {40, 50}) assertThat(chat(t, max).status()).isEqualTo(200);
        settled(t.id(), 5);
        long day6 = 3 * PROMPT + (100 + 200 + 300) * 10;
        long day7 = 2 * PROMPT + (40 + 50) * 10;
        int upstreamCalls = upstream().requests().size();
        assertThat(upstreamCalls).isEqualTo(5);

        // The tenant, with its own key: free, answered by the gateway.
        Answer before = tenantCall("GET", "/v1/sluice/usage", t.key());
        Answer usage = tenantCall("GET", "/v1/sluice/usage", t.key());
        assertThat(usage.status()).as(usage.body()).isEqualTo(200);
        JsonNode u = usage.json();
        assertThat(u.get("object").asString()).isEqualTo("sluice.usage");
        assertThat(u.get("tier").asString()).isEqualTo("metered");
        assertThat(u.get("windows").get(0).get("name").asString()).isEqualTo("minute");
        assertThat(u.get("windows").get(0).get("used_requests").asLong())
                .as("reading the usage charges no request")
                .isEqualTo(
                        before.json().get("windows").get(0).get("used_requests").asLong());
        JsonNode day = u.get("spend_budgets").get(0);
        assertThat(day.get("period").asString()).isEqualTo("day");
        assertThat(day.get("limit_usd").decimalValue()).isEqualByComparingTo("5");
        assertThat(day.get("used_usd").decimalValue()).isEqualByComparingTo(BigDecimal.valueOf(day7, 6));
        assertThat(day.get("resets_at").asString()).isEqualTo(DAY2.plusDays(1) + "T00:00:00Z");
        JsonNode month = u.get("spend_budgets").get(1);
        assertThat(month.get("period").asString()).isEqualTo("month");
        assertThat(month.get("used_usd").decimalValue()).isEqualByComparingTo(BigDecimal.valueOf(day6 + day7, 6));
        assertThat(u.get("today").get("requests").asLong()).isEqualTo(2);
        assertThat(u.get("today").get("usd").decimalValue()).isEqualByComparingTo(BigDecimal.valueOf(day7, 6));
        assertThat(u.get("this_month").get("input_tokens").asLong()).isEqualTo(5 * PROMPT);
        assertThat(u.get("this_month").get("output_tokens").asLong()).isEqualTo(690);
        assertThat(u.get("this_month").get("usd").decimalValue())
                .isEqualByComparingTo(BigDecimal.valueOf(day6 + day7, 6));
        assertThat(upstream().requests()).as("never sent to the provider").hasSize(upstreamCalls);

        // The operator: budgets and the 30-day series.
        Answer spend = adminGet("/admin/api/tenants/" + t.id() + "/spend?days=30");
        assertThat(spend.status()).as(spend.body()).isEqualTo(200);
        JsonNode s = spend.json();
        assertThat(s.get("timeZone").asString()).isEqualTo("UTC");
        assertThat(s.get("budgets")).hasSize(2);
        assertThat(s.get("budgets").get(0).get("remainingUsd").decimalValue())
                .isEqualByComparingTo(BigDecimal.valueOf(5_000_000 - day7, 6));
        JsonNode series = s.get("series");
        assertThat(series).hasSize(30);
        assertThat(series.get(29).get("date").asString()).isEqualTo(DAY2.toString());
        assertThat(series.get(29).get("usd").decimalValue()).isEqualByComparingTo(BigDecimal.valueOf(day7, 6));
        assertThat(series.get(28).get("usd").decimalValue()).isEqualByComparingTo(BigDecimal.valueOf(day6, 6));
        assertThat(series.get(0).get("requests").asLong()).isZero();
        assertThat(s.get("totals").get("requests").asLong()).isEqualTo(5);

        // The month's CSV: the tenant's rows equal the provider's own bill for the same calls.
        Answer csv = adminGet("/admin/api/usage/export?month=" + MONTH);
        assertThat(csv.status()).as(csv.body()).isEqualTo(200);
        assertThat(csv.headers().getContentType().toString()).startsWith("text/csv");
        assertThat(csv.headers().getFirst(HttpHeaders.CONTENT_DISPOSITION))
                .isEqualTo("attachment; filename=\"sluice-usage-"
                        + YearMonth.from(DAY1).atDay(1) + "_"
                        + YearMonth.from(DAY1).atEndOfMonth() + ".csv\"");
        List<String> rows = Arrays.stream(csv.body().split("\r\n"))
                .filter(l -> l.contains("," + t.id() + ","))
                .toList();
        assertThat(rows)
                .as("a tenant in no organisation has the last column empty")
                .containsExactly(
                        DAY1 + "," + t.id() + ",metered,51,600,3,"
                                + BigDecimal.valueOf(day6, 6).toPlainString() + ",",
                        DAY2 + "," + t.id() + ",metered,34,90,2,"
                                + BigDecimal.valueOf(day7, 6).toPlainString() + ",");
        long csvMicros = rows.stream()
                .map(r -> new BigDecimal(r.split(",")[6]).movePointRight(6).longValueExact())
                .reduce(0L, Long::sum);
        long bill = upstream().requests().stream()
                .mapToLong(SpendViewContract::billed)
                .sum();
        assertThat(csvMicros).as("the CSV is the provider's bill").isEqualTo(bill);
    }

    @Test
    void anOrganisationsSpendIsItsOwnBudgetsAndItsCurrentMembersLedgerSummed() {
        CLOCK.set(AFTER_MIDNIGHT);
        TestTenants.Created a = TestTenants.create(tenants, "orga", "metered");
        TestTenants.Created b = TestTenants.create(tenants, "orgb", "metered");
        TestTenants.Created outside = TestTenants.create(tenants, "orgout", "metered");
        String org = "spendorg-" + a.id().substring(a.id().lastIndexOf('-') + 1);
        assertThat(adminSend(
                                "POST",
                                "/admin/api/organisations",
                                "{\"id\":\"" + org + "\",\"spend\":{\"usd-per-day\":2,\"time-zone\":\"UTC\"}}")
                        .status())
                .isEqualTo(201);
        Answer empty = adminGet("/admin/api/organisations/" + org + "/spend");
        assertThat(empty.status()).as(empty.body()).isEqualTo(200);
        assertThat(empty.json().get("members")).isEmpty();
        assertThat(empty.json().get("series"))
                .as("no members: every day at zero")
                .hasSize(30);
        assertThat(empty.json().get("totals").get("usd").decimalValue()).isZero();
        assertThat(empty.json().get("budgets").get(0).get("usedUsd").decimalValue())
                .isZero();

        for (TestTenants.Created m : List.of(a, b))
            assertThat(adminSend("PATCH", "/admin/api/tenants/" + m.id(), "{\"organisation\":\"" + org + "\"}")
                            .status())
                    .isEqualTo(200);
        assertThat(chat(a, 100).status()).isEqualTo(200);
        assertThat(chat(b, 200).status()).isEqualTo(200);
        assertThat(chat(outside, 300).status()).isEqualTo(200);
        settled(a.id(), 1);
        settled(b.id(), 1);
        settled(outside.id(), 1);
        long both = 2 * PROMPT + (100 + 200) * 10;

        Answer spend = adminGet("/admin/api/organisations/" + org + "/spend?days=7");
        assertThat(spend.status()).as(spend.body()).isEqualTo(200);
        JsonNode s = spend.json();
        assertThat(s.get("organisation").asString()).isEqualTo(org);
        assertThat(s.get("timeZone").asString()).isEqualTo("UTC");
        assertThat(s.get("members")).extracting(JsonNode::asString).containsExactlyInAnyOrder(a.id(), b.id());
        assertThat(s.get("series")).hasSize(7);
        assertThat(s.get("series").get(6).get("date").asString()).isEqualTo(DAY2.toString());
        assertThat(s.get("series").get(6).get("usd").decimalValue())
                .as("both members, not the tenant outside")
                .isEqualByComparingTo(BigDecimal.valueOf(both, 6));
        assertThat(s.get("totals").get("requests").asLong()).isEqualTo(2);
        JsonNode day = s.get("budgets").get(0);
        assertThat(day.get("period").asString()).isEqualTo("day");
        assertThat(day.get("limitUsd").decimalValue()).isEqualByComparingTo("2");
        assertThat(day.get("usedUsd").decimalValue())
                .as("the shared budget charged both")
                .isEqualByComparingTo(BigDecimal.valueOf(both, 6));
        assertThat(day.get("resetsAt").asString()).isEqualTo(DAY2.plusDays(1) + "T00:00:00Z");
        Answer again = adminGet("/admin/api/organisations/" + org + "/spend?days=7");
        assertThat(again.json().get("budgets").get(0).get("usedUsd").decimalValue())
                .as("reading charges nothing")
                .isEqualByComparingTo(BigDecimal.valueOf(both, 6));

        Answer csv = adminGet("/admin/api/usage/export?month=" + MONTH);
        List<String> lines = Arrays.asList(csv.body().split("\r\n"));
        assertThat(lines.get(0)).isEqualTo("date,tenant,tier,input_tokens,output_tokens,requests,usd,organisation");
        assertThat(lines).anyMatch(l -> l.startsWith(DAY2 + "," + a.id() + ",") && l.endsWith("," + org));
        assertThat(lines).anyMatch(l -> l.startsWith(DAY2 + "," + b.id() + ",") && l.endsWith("," + org));
        assertThat(lines).anyMatch(l -> l.startsWith(DAY2 + "," + outside.id() + ",") && l.endsWith(","));

        // A member that leaves takes its history with it: the series sums today's members.
        assertThat(adminSend("PATCH", "/admin/api/tenants/" + b.id(), "{\"organisation\":null}")
                        .status())
                .isEqualTo(200);
        JsonNode after =
                adminGet("/admin/api/organisations/" + org + "/spend?days=7").json();
        assertThat(after.get("members")).hasSize(1);
        assertThat(after.get("totals").get("usd").decimalValue())
                .isEqualByComparingTo(BigDecimal.valueOf(PROMPT + 100 * 10, 6));
    }

    @Test
    void anOrganisationsSpendRefusesBadDaysAndUnknownOrganisations() {
        assertError(adminGet("/admin/api/organisations/nobody/spend"), 404, "not_found", "Organisation 'nobody'");
        String org = "spendrange";
        Answer created = adminSend("POST", "/admin/api/organisations", "{\"id\":\"" + org + "\"}");
        assertThat(created.status()).as(created.body()).isIn(201, 409);
        for (String bad : List.of("0", "-1", "401"))
            assertError(
                    adminGet("/admin/api/organisations/" + org + "/spend?days=" + bad),
                    422,
                    "validation_failed",
                    "days");
        JsonNode none =
                adminGet("/admin/api/organisations/" + org + "/spend?days=400").json();
        assertThat(none.get("series")).hasSize(400);
        assertThat(none.get("budgets")).as("no budget capped").isEmpty();
        assertThat(none.get("timeZone").isNull()).isTrue();
        assertThat(admin().post()
                        .uri("/admin/api/organisations/" + org + "/spend")
                        .exchangeToMono(SpendViewContract::answer)
                        .block(Duration.ofSeconds(10))
                        .status())
                .as("GET only")
                .isIn(404, 405);
    }

    @Test
    void theUsageEndpointIsGetOnlyNeedsAKeyAndOtherSluicePathsAreUnknown() {
        TestTenants.Created t = TestTenants.create(tenants, "methods", "metered");
        Answer post = tenantCall("POST", "/v1/sluice/usage", t.key());
        assertThat(post.status()).isEqualTo(405);
        assertThat(post.headers().getFirst(HttpHeaders.ALLOW)).isEqualTo("GET");
        assertThat(tenantCall("DELETE", "/v1/sluice/usage", t.key()).status()).isEqualTo(405);
        Answer other = tenantCall("GET", "/v1/sluice/other", t.key());
        assertThat(other.status()).isEqualTo(404);
        assertThat(other.json().get("error").get("code").asString()).isEqualTo("unknown_url");
        Answer anonymous = tenantCall("GET", "/v1/sluice/usage", null);
        assertThat(anonymous.status()).isEqualTo(401);
        Answer wrongKey = tenantCall("GET", "/v1/sluice/usage", "sk-wrong");
        assertThat(wrongKey.status()).isEqualTo(401);
        assertThat(upstream().requests()).isEmpty();
    }

    @Test
    void badExportRangesAndUnknownTenantsAreClearErrors() {
        assertError(adminGet("/admin/api/usage/export"), 400, "invalid_range", "give month=YYYY-MM");
        assertError(
                adminGet("/admin/api/usage/export?from=2026-01-01&to=2027-02-05"), 400, "invalid_range", "401 days");
        assertError(adminGet("/admin/api/usage/export?from=2026-12-07&to=2026-12-06"), 400, "invalid_range", "before");
        assertError(adminGet("/admin/api/usage/export?month=2026-13"), 400, "invalid_range", "YYYY-MM");
        assertError(adminGet("/admin/api/usage/export?from=x&to=2026-12-06"), 400, "invalid_range", "from must be");
        assertError(
                adminGet("/admin/api/usage/export?month=2026-12&from=2026-12-01&to=2026-12-02"),
                400,
                "invalid_range",
                "not both");
        assertThat(adminGet("/admin/api/usage/export?from=2026-01-01&to=2027-02-04")
                        .status())
                .as("400 days is the most")
                .isEqualTo(200);
        assertError(adminGet("/admin/api/tenants/nobody/spend"), 404, "not_found", "Tenant 'nobody'");
        TestTenants.Created t = TestTenants.create(tenants, "ranges", "metered");
        assertError(adminGet("/admin/api/tenants/" + t.id() + "/spend?days=0"), 422, "validation_failed", "days");
        assertError(adminGet("/admin/api/tenants/" + t.id() + "/spend?days=401"), 422, "validation_failed", "400");
        assertThat(adminGet("/admin/api/tenants/" + t.id() + "/spend?days=400")
                        .json()
                        .get("series"))
                .hasSize(400);
        assertThat(WebClient.create("http://127.0.0.1:" + port)
                        .get()
                        .uri("/admin/api/usage/export?month=" + MONTH)
                        .exchangeToMono(SpendViewContract::answer)
                        .block(Duration.ofSeconds(10))
                        .status())
                .as("operators only")
                .isEqualTo(401);
    }

    @Test
    void budgetRefusalsAreCountedPerTierAndPeriodAndTenantsAtTheirBudgetInTheGauge() {
        CLOCK.set(AFTER_MIDNIGHT);
        double before = refusals("tight", "day");
        TestTenants.Created t = TestTenants.create(tenants, "tight", "tight");
        // $0.001 a day: 50 output tokens reserve about $0.00051, so one call fits and the second does not.
        assertThat(chat(t, 50).status()).isEqualTo(200);
        settled(t.id(), 1);
        Answer refused = chat(t, 50);
        assertThat(refused.status()).as(refused.body()).isEqualTo(429);
        assertThat(refused.json().get("error").get("code").asString()).isEqualTo("budget_exceeded");
        // Counted as the request ends, which may be just after the client has the answer.
        await().atMost(Duration.ofSeconds(5)).until(() -> refusals("tight", "day") == before + 1);
        Answer neverFits = chat(t, 1000);
        assertThat(neverFits.status()).as(neverFits.body()).isEqualTo(400);
        await().atMost(Duration.ofSeconds(5)).until(() -> refusals("tight", "day") == before + 2);
        assertThat(refusals("metered", "month")).as("registered at zero").isNotNull();

        gauges.sample().block(Duration.ofSeconds(10));
        // Tenants of earlier runs may still be in a shared Redis: the count is compared, not read alone.
        double above = gauge("tight", "day", "above-80");
        // A tenant with its own budget of 520 micro-dollars, of which one call spends 517: above 80 %.
        TestTenants.Created full = TestTenants.create(tenants, "full", "tight");
        tenants.save(new dev.sluice.gateway.tenant.Tenant(
                        full.id(),
                        "tight",
                        false,
                        new dev.sluice.gateway.config.SpendBudget(520, 0, dev.sluice.gateway.config.SpendBudget.UTC)))
                .block();
        assertThat(chat(full, 50).status()).isEqualTo(200);
        settled(full.id(), 1);
        gauges.sample().block(Duration.ofSeconds(10));
        assertThat(gauge("tight", "day", "above-80"))
                .as("517 of 1000 micro-dollars was not above 80 %%; 517 of 520 is")
                .isEqualTo(above + 1);
        assertThat(gauge("tight", "month", "at-100")).isZero();
        assertThat(gauge("metered", "month", "at-100")).as("registered at zero").isZero();
    }

    double refusals(String tier, String period) {
        return Search.in(meters)
                .name(SpendRefusalsMeter.REFUSALS)
                .tags("tier", tier, "period", period)
                .counter()
                .count();
    }

    double gauge(String tier, String period, String level) {
        return Search.in(meters)
                .name(BudgetGauges.TENANTS)
                .tags("tier", tier, "period", period, "level", level)
                .gauge()
                .value();
    }

    static void assertError(Answer a, int status, String code, String message) {
        assertThat(a.status()).as(a.body()).isEqualTo(status);
        JsonNode error = a.json().get("error");
        assertThat(error.get("code").asString()).isEqualTo(code);
        assertThat(error.get("message").asString()).contains(message);
    }
}
