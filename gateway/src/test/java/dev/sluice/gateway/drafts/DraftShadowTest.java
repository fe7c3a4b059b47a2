package dev.sluice.gateway.drafts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.drafts.redis.RedisTierDraftStore;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The draft in shadow as each replica sees it: two replicas over one Redis store, one changing it. */
class DraftShadowTest {
    static final Duration WAIT = Duration.ofSeconds(5);
    static final BiFunction<String, String, SluiceConfig> PARSE = TiersYamlParser::parse;

    final TierDraftStore store = new RedisTierDraftStore(TestRedisTemplates.template(), "test-" + UUID.randomUUID());
    final DraftShadow here = new DraftShadow(store, PARSE);
    final DraftShadow there = new DraftShadow(store, PARSE);

    @AfterEach
    void stop() {
        here.stop();
        there.stop();
    }

    static String stricter() throws IOException {
        return Files.readString(Path.of("../tiers.yaml"), StandardCharsets.UTF_8)
                .replaceFirst("tokens-per-minute: 10000\n", "tokens-per-minute: 5000\n");
    }

    @Test
    void anotherReplicaFollowsTheSwitchWithinItsPollInterval() throws IOException {
        there.startPolling(Duration.ofMillis(100));
        Instant on = Instant.ofEpochMilli(1_800_000_000_000L);
        store.save(-1, stricter(), "alice", on).block(WAIT);
        here.checkOnce().block(WAIT);
        assertThat(here.draft()).as("saved, not in shadow").isNull();
        TierDraft shadowed = store.shadow(true, on).block(WAIT).draft();
        here.checkOnce().block(WAIT);
        assertThat(here.draft().tiers().get("free").tokensPerMinute()).isEqualTo(5000);
        assertThat(here.draftVersion()).isEqualTo(shadowed.version());
        assertThat(here.sinceMs()).isEqualTo(on.toEpochMilli());
        await().atMost(Duration.ofSeconds(2)).until(() -> there.draft() != null);
        assertThat(there.draftVersion()).isEqualTo(shadowed.version());

        store.delete(-1).block(WAIT);
        await().atMost(Duration.ofSeconds(2)).until(() -> there.draft() == null);
        assertThat(there.draftVersion()).isZero();
        assertThat(there.sinceMs()).isZero();
    }

    @Test
    void aDraftThatDoesNotParseHereIsNoShadowAndAnOlderChangeNeverWinsOverANewerOne() throws IOException {
        store.save(-1, "tiers: [", "mallory", Instant.EPOCH).block(WAIT);
        store.shadow(true, Instant.EPOCH).block(WAIT);
        here.checkOnce().block(WAIT);
        assertThat(here.draft()).isNull();

        TierDraft good =
                store.save(-1, stricter(), "alice", Instant.EPOCH).block(WAIT).draft();
        here.apply(good.version(), good);
        here.apply(good.version() - 1, null); // a slower answer about an earlier version
        assertThat(here.draft()).isNotNull();
    }
}
