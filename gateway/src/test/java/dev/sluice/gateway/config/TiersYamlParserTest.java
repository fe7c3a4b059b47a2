package dev.sluice.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class TiersYamlParserTest {

    private static final Path INVALID = Path.of("src/test/resources/tiers/invalid");

    @Test
    void theShippedTiersYamlLoadsWithTheSeedsTiers() throws IOException {
        SluiceConfig config = TiersYamlParser.parse("tiers.yaml", Files.readString(Path.of("../tiers.yaml")));

        assertThat(config.tiers()).containsOnlyKeys("free", "pro", "enterprise");
        Tier free = config.tiers().get("free");
        Tier pro = config.tiers().get("pro");
        Tier enterprise = config.tiers().get("enterprise");
        assertThat(free.tokensPerMinute()).isEqualTo(10_000);
        assertThat(pro.tokensPerMinute()).isEqualTo(100_000);
        assertThat(enterprise.tokensPerMinute()).isEqualTo(1_000_000);
        assertThat(free.burstAllowance()).isEqualTo(1.0);
        assertThat(pro.burstAllowance()).isEqualTo(1.5);
        assertThat(enterprise.burstAllowance()).isEqualTo(2.0);
        assertThat(free.priority()).isEqualTo(3);
        assertThat(pro.priority()).isEqualTo(2);
        assertThat(enterprise.priority()).isEqualTo(1);
        assertThat(pro.minuteWindow().tokens()).isEqualTo(150_000);
        assertThat(pro.downgradeOf("gpt-4o")).isEqualTo("gpt-4o-mini");
        assertThat(config.ladder().downgradeAbove()).isEqualTo(0.80);
        assertThat(config.abuse().consecutiveMinutes()).isEqualTo(15);
        assertThat(config.providers().get(0).limitsFor("gpt-4o").tokensPerMinute())
                .isEqualTo(300_000);
        assertThat(config.demoTenants())
                .extracting(DemoTenant::id)
                .contains("demo-free", "demo-pro", "demo-enterprise");
    }

    @Test
    void anHourWindowDefaultsToSixtyMinutesOfTheTierSoBurstBuysNoRate() throws IOException {
        SluiceConfig config = TiersYamlParser.parse("tiers.yaml", Files.readString(Path.of("../tiers.yaml")));

        Tier enterprise = config.tiers().get("enterprise"); // declares no windows
        assertThat(enterprise.windows()).extracting(WindowLimit::name).containsExactly("minute", "hour");
        assertThat(enterprise.windows().get(1).tokens()).isEqualTo(60L * 1_000_000);
        assertThat(enterprise.windows().get(0).tokens()).isEqualTo(2_000_000);
    }

    @Test
    void aTierOpensTheFamiliesItListsWholeAndTheDefaultOnlyTheMeteredAndFreeOperations() throws IOException {
        String yaml = """
                tiers:
                  free: {tokens-per-minute: 10000, requests-per-minute: 60, priority: 3}
                  live: {tokens-per-minute: 10000, requests-per-minute: 60, priority: 3, endpoints: [chat, realtime, audio]}
                  none: {tokens-per-minute: 10000, requests-per-minute: 60, priority: 3, endpoints: []}
                providers:
                  - name: default
                    models:
                      "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 200}
                """;
        SluiceConfig config = TiersYamlParser.parse("endpoints.yaml", yaml);
        EndpointAccess byDefault = config.tiers().get("free").endpoints();
        assertThat(byDefault).isEqualTo(EndpointAccess.DEFAULT);
        assertThat(byDefault.opens(Family.AUDIO, false)).isTrue();
        assertThat(byDefault.opens(Family.AUDIO, true))
                .as("a transcription is not in the default")
                .isFalse();
        assertThat(byDefault.opens(Family.REALTIME, true)).isFalse();
        assertThat(byDefault.opens(Family.THREADS, false)).isFalse();

        EndpointAccess live = config.tiers().get("live").endpoints();
        assertThat(live.families()).containsExactlyInAnyOrder(Family.CHAT, Family.REALTIME, Family.AUDIO);
        assertThat(live.opens(Family.REALTIME, true)).isTrue();
        assertThat(live.opens(Family.AUDIO, true)).isTrue();
        assertThat(live.opens(Family.EMBEDDINGS, false)).as("not listed").isFalse();

        EndpointAccess none = config.tiers().get("none").endpoints();
        assertThat(none.opens(Family.CHAT, false)).isFalse();
        assertThat(none.opens(Family.MODELS, false))
                .as("models are always open")
                .isTrue();
        // The shipped file keeps the default on every tier.
        SluiceConfig shipped = TiersYamlParser.parse("tiers.yaml", Files.readString(Path.of("../tiers.yaml")));
        assertThat(shipped.tiers().values())
                .allSatisfy(t -> assertThat(t.endpoints()).isEqualTo(EndpointAccess.DEFAULT));
    }

    @Test
    void aCapNearLongMaxSaturatesTheDefaultWindowsInsteadOfWrapping() {
        String yaml = """
                tiers:
                  free:
                    tokens-per-minute: 9223372036854775807
                    requests-per-minute: 9223372036854775807
                    priority: 3
                    windows:
                      - name: day
                        seconds: 86400
                providers:
                  - name: default
                    models:
                      "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 200}
                """;
        SluiceConfig config = TiersYamlParser.parse("huge", yaml);
        // 60 × (2^63-1) wrapped to -60 once: a cap the windows then read as "never fits" or, with
        // another multiplier, as a free pass.
        assertThat(config.tiers().get("free").windows())
                .extracting(WindowLimit::name)
                .containsExactly("minute", "hour", "day");
        assertThat(config.tiers().get("free").windows()).allSatisfy(w -> {
            assertThat(w.tokens()).isEqualTo(Long.MAX_VALUE);
            assertThat(w.requests()).isEqualTo(Long.MAX_VALUE);
        });
    }

    @Test
    void aTierMayListItsModelsAndKeepATokenWindowPerModel() {
        String yaml = """
                tiers:
                  free:
                    tokens-per-minute: 10000
                    requests-per-minute: 60
                    priority: 3
                    models: [gpt-4o-mini, gpt-4o]
                    model-limits:
                      gpt-4o: {tokens-per-minute: 2000}
                      gpt-4o-mini: {tokens-per-minute: 9223372036854775807, requests-per-minute: 30}
                    downgrade:
                      gpt-4o: gpt-4o-mini
                  pro: {tokens-per-minute: 10000, requests-per-minute: 60, priority: 2}
                providers:
                  - name: default
                    models:
                      "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 200}
                """;
        SluiceConfig config = TiersYamlParser.parse("models", yaml);
        Tier free = config.tiers().get("free");
        assertThat(free.models().allowed()).containsExactly("gpt-4o-mini", "gpt-4o");
        assertThat(free.models().allows("gpt-4o")).isTrue();
        assertThat(free.models().allows("gpt-4.1")).isFalse();
        assertThat(free.models().allows(null))
                .as("a request that names no model")
                .isTrue();
        assertThat(free.windowsFor("gpt-4o"))
                .extracting(WindowLimit::name)
                .containsExactly("minute", "hour", "model:gpt-4o");
        WindowLimit gpt4o = free.windowsFor("gpt-4o").get(2);
        assertThat(gpt4o.seconds()).isEqualTo(60);
        assertThat(gpt4o.tokens()).as("no burst on a model's window").isEqualTo(2000);
        assertThat(gpt4o.requests()).as("requests not capped").isEqualTo(Long.MAX_VALUE);
        WindowLimit mini = free.models().windowOf("gpt-4o-mini");
        assertThat(mini.tokens())
                .as("2^63-1 is kept; the windows saturate at their largest count")
                .isEqualTo(Long.MAX_VALUE);
        assertThat(mini.requests()).isEqualTo(30);
        assertThat(free.windowsFor("gpt-4.1")).isEqualTo(free.windows());

        Tier pro = config.tiers().get("pro");
        assertThat(pro.models()).isEqualTo(TierModels.ALL);
        assertThat(pro.models().allows("anything")).isTrue();
        assertThat(pro.windowsFor("gpt-4o")).isEqualTo(pro.windows());
    }

    @Test
    void aModelMayDeclareInputAndOutputLimitsBesideOrInsteadOfTheTotal() {
        String yaml = """
                tiers:
                  free: {tokens-per-minute: 10000, requests-per-minute: 60, priority: 3}
                providers:
                  - name: anthropic
                    models:
                      claude-sonnet:
                        requests-per-minute: 50
                        input-tokens-per-minute: 30000
                        output-tokens-per-minute: 8000
                        max-in-flight: 20
                      "*":
                        requests-per-minute: 50
                        tokens-per-minute: 40000
                        output-tokens-per-minute: 8000
                        max-in-flight: 20
                """;
        ProviderSettings p = TiersYamlParser.parse("split", yaml).providers().get(0);
        assertThat(p.limitsFor("claude-sonnet")).isEqualTo(new ModelLimits(50, 0, 20, 0.0, 30_000, 8_000));
        assertThat(p.limitsFor("claude-sonnet").split()).isTrue();
        assertThat(p.limitsFor("other")).isEqualTo(new ModelLimits(50, 40_000, 20, 0.0, 0, 8_000));
    }

    @Test
    void routesOrderTheProvidersOfAModelAndOtherModelsGoToTheProvidersThatServeThemInDocumentOrder() {
        String yaml = """
                tiers:
                  free: {tokens-per-minute: 10000, requests-per-minute: 60, priority: 3}
                providers:
                  - name: primary
                    models:
                      gpt-4o-mini: {requests-per-minute: 150, tokens-per-minute: 30000, max-in-flight: 20}
                      gpt-4o: {requests-per-minute: 150, tokens-per-minute: 30000, max-in-flight: 20, upstream-model: prod-gpt4o}
                  - name: secondary
                    base-url: https://example.openai.azure.com/openai/v1
                    api-key-env: SLUICE_PROVIDER_AZURE_KEY
                    models:
                      "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 200}
                routes:
                  gpt-4o-mini: [secondary, primary]
                """;
        SluiceConfig config = TiersYamlParser.parse("two", yaml);
        assertThat(config.route("gpt-4o-mini"))
                .extracting(ProviderSettings::name)
                .as("the route's order")
                .containsExactly("secondary", "primary");
        assertThat(config.route("gpt-4o"))
                .extracting(ProviderSettings::name)
                .as("no route: document order")
                .containsExactly("primary", "secondary");
        assertThat(config.route("llama-3"))
                .extracting(ProviderSettings::name)
                .as("only the catch-all serves it")
                .containsExactly("secondary");
        assertThat(config.route(null))
                .extracting(ProviderSettings::name)
                .as("no model: the first provider")
                .containsExactly("primary");
        ProviderSettings primary = config.provider("primary").orElseThrow();
        assertThat(primary.upstreamModel("gpt-4o")).isEqualTo("prod-gpt4o");
        assertThat(primary.upstreamModel("gpt-4o-mini")).isEqualTo("gpt-4o-mini");
        assertThat(config.withProviders(config.providers()).routes()).isEqualTo(config.routes());

        SluiceConfig noCatchAll = TiersYamlParser.parse("one", """
                tiers:
                  free: {tokens-per-minute: 10000, requests-per-minute: 60, priority: 3}
                providers:
                  - name: only
                    models:
                      gpt-4o: {requests-per-minute: 150, tokens-per-minute: 30000, max-in-flight: 20}
                """);
        assertThat(noCatchAll.route("gpt-5")).as("404 model_not_found").isEmpty();
    }

    @Test
    void aTierMayDeclareSpendBudgetsHeldAsWholeMicroDollarsInItsZone() {
        SluiceConfig config = TiersYamlParser.parse("spend", """
                tiers:
                  free:
                    tokens-per-minute: 10000
                    requests-per-minute: 60
                    priority: 3
                    spend: {usd-per-day: 0.1, usd-per-month: 20.00, time-zone: America/New_York}
                  daily: {tokens-per-minute: 10000, requests-per-minute: 60, priority: 3, spend: {usd-per-day: 0.000001}}
                  odd:
                    tokens-per-minute: 10000
                    requests-per-minute: 60
                    priority: 3
                    spend: {usd-per-day: 30, usd-per-month: 10}
                  pro: {tokens-per-minute: 10000, requests-per-minute: 60, priority: 3}
                providers:
                  - name: default
                    models:
                      "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 200}
                """);
        SpendBudget free = config.tiers().get("free").spend();
        assertThat(free.dayMicros()).as("0.1 read as a decimal, not a double").isEqualTo(100_000);
        assertThat(free.monthMicros()).isEqualTo(20_000_000);
        assertThat(free.zone().getId()).isEqualTo("America/New_York");
        SpendBudget daily = config.tiers().get("daily").spend();
        assertThat(daily).isEqualTo(new SpendBudget(1, 0, SpendBudget.UTC));
        assertThat(config.tiers().get("odd").spend().dayMicros())
                .as("a day above the month is allowed: it never binds")
                .isEqualTo(30_000_000);
        assertThat(config.tiers().get("pro").spend()).isEqualTo(SpendBudget.NONE);
        assertThat(SpendBudget.NONE.capped()).isFalse();
    }

    @Test
    void inputAndOutputMayBePricedApartAndTheSplitPriceWins() {
        SluiceConfig config = TiersYamlParser.parse("prices", """
                tiers:
                  free: {tokens-per-minute: 10000, requests-per-minute: 60, priority: 3}
                providers:
                  - name: default
                    models:
                      gpt-4o:
                        requests-per-minute: 1500
                        tokens-per-minute: 300000
                        max-in-flight: 200
                        price-per-million-tokens: 3
                        price-per-million-output-tokens: 10
                      gpt-4o-mini: {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 200, price-per-million-input-tokens: 0.15, price-per-million-output-tokens: 0.6}
                """);
        ProviderSettings p = config.providers().get(0);
        ModelLimits gpt4o = p.limitsFor("gpt-4o");
        assertThat(gpt4o.pricePerMillionInputTokens())
                .as("the single price, for the side not priced apart")
                .isEqualTo(3.0);
        assertThat(gpt4o.pricePerMillionOutputTokens()).isEqualTo(10.0);
        assertThat(gpt4o.costMicros(1_000, 500)).as("1000 × $3/M + 500 × $10/M").isEqualTo(3_000 + 5_000);
        ModelLimits mini = p.limitsFor("gpt-4o-mini");
        assertThat(mini.pricePerMillionTokens()).isZero();
        assertThat(mini.costMicros(1_000_000, 1_000_000)).isEqualTo(150_000 + 600_000);
        assertThat(mini.costMicros(1, 1)).as("rounded up: never under-charged").isEqualTo(2);
    }

    @Test
    void everyProblemInADocumentIsReportedAtOnce() {
        String yaml = """
                tiers:
                  free:
                    tokens-per-minute: ten
                    requests-per-minute: -1
                    priority: 3
                providers: []
                """;
        assertThatThrownBy(() -> TiersYamlParser.parse("doc", yaml))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.problems())
                                .extracting(ConfigProblem::field)
                                .containsExactly(
                                        "tiers.free.tokens-per-minute", "tiers.free.requests-per-minute", "providers"));
    }

    static Stream<Path> invalidFixtures() throws IOException {
        return Files.list(INVALID).filter(p -> p.toString().endsWith(".yaml")).sorted();
    }

    /**
     * One fixture per kind of mistake. Each file's first two lines say the line the problem must
     * name (0: none) and the message it must contain (field path and explanation).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidFixtures")
    void eachInvalidFixtureIsRefusedWithItsExactMessage(Path fixture) throws IOException {
        String yaml = Files.readString(fixture, StandardCharsets.UTF_8);
        String[] header = yaml.split("\n", 3);
        int expectedLine =
                Integer.parseInt(header[0].substring("# expect-line: ".length()).trim());
        String expected = header[1].substring("# expect: ".length()).trim();

        assertThatThrownBy(() -> TiersYamlParser.parse(fixture.getFileName().toString(), yaml))
                .isInstanceOfSatisfying(ConfigException.class, e -> {
                    assertThat(e.problems()).anySatisfy(p -> {
                        assertThat(p.field() + ": " + p.message()).startsWith(expected);
                        assertThat(p.line()).isEqualTo(expectedLine);
                    });
                    assertThat(e.getMessage()).contains(fixture.getFileName().toString());
                });
    }
}
