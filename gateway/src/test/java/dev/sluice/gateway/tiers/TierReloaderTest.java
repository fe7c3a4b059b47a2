package dev.sluice.gateway.tiers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.quota.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TierReloaderTest {
    final FakeClock clock = new FakeClock(1_800_000_000_000L);
    final InMemoryTierDocumentStore store = new InMemoryTierDocumentStore(clock);
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final List<SluiceConfig> providerChanges = new ArrayList<>();
    String seed;
    ConfigRegistry registry;
    TierReloader reloader;

    @BeforeEach
    void setUp() throws Exception {
        seed = Files.readString(Path.of("../tiers.yaml"));
        registry = new ConfigRegistry(TiersYamlParser.parse("seed", seed));
        reloader = new TierReloader(store, registry, "", meters, providerChanges::add);
        reloader.start(seed, "tiers.yaml", Duration.ofSeconds(1));
    }

    double reloads(String result) {
        var c = meters.find("sluice.config.reload").tag("result", result).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aNewVersionIsAppliedOnTheNextPoll() {
        store.replace(1, seed.replace("tokens-per-minute: 10000\n", "tokens-per-minute: 500\n"), "alice")
                .block();
        reloader.checkOnce().block();
        assertThat(registry.current().tier("free").orElseThrow().tokensPerMinute())
                .isEqualTo(500);
        assertThat(reloader.appliedVersion()).isEqualTo(2);
        assertThat(reloads("applied")).isEqualTo(1);
        assertThat(meters.get("sluice.config.version").gauge().value()).isEqualTo(2);
        assertThat(providerChanges).isEmpty(); // same providers: routes need no refresh
    }

    @Test
    void anInvalidVersionKeepsTheLastGoodConfigAndIsCountedOnce() {
        SluiceConfig before = registry.current();
        store.replace(1, seed.replace("tokens-per-minute: 10000\n", "tokens-per-minute: lots\n"), "mallory")
                .block();
        reloader.checkOnce().block();
        reloader.checkOnce().block();
        assertThat(registry.current()).isSameAs(before);
        assertThat(reloader.appliedVersion()).isEqualTo(1);
        assertThat(reloads("invalid")).isEqualTo(1);

        store.replace(2, seed.replace("tokens-per-minute: 10000\n", "tokens-per-minute: 700\n"), "alice")
                .block();
        reloader.checkOnce().block();
        assertThat(registry.current().tier("free").orElseThrow().tokensPerMinute())
                .isEqualTo(700);
    }

    @Test
    void theProviderOverrideSurvivesAReloadAndAProviderChangeIsAnnounced() {
        TierReloader overridden =
                new TierReloader(store, registry, "http://127.0.0.1:9/v1", meters, providerChanges::add);
        overridden.start(seed, "tiers.yaml", Duration.ofSeconds(1));
        store.replace(1, seed.replace("tokens-per-minute: 10000\n", "tokens-per-minute: 800\n"), "alice")
                .block();
        overridden.checkOnce().block();
        assertThat(registry.current().providers().get(0).baseUrl()).isEqualTo("http://127.0.0.1:9/v1");
        assertThat(providerChanges).hasSize(1);
    }

    @Test
    void aStoredDocumentOtherThanTheFileWinsAtStart() {
        InMemoryTierDocumentStore edited = new InMemoryTierDocumentStore(clock);
        edited.seedIfAbsent(seed.replace("tokens-per-minute: 10000\n", "tokens-per-minute: 900\n"), "earlier edit")
                .block();
        ConfigRegistry fresh = new ConfigRegistry(TiersYamlParser.parse("seed", seed));
        new TierReloader(edited, fresh, "", meters, c -> {}).start(seed, "tiers.yaml", Duration.ofSeconds(1));
        assertThat(fresh.current().tier("free").orElseThrow().tokensPerMinute()).isEqualTo(900);
    }
}
