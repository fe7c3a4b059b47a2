package dev.sluice.gateway.drafts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.UsageSample;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.shadow.ShadowMinute;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The replay's estimate against cases computed by hand, and its two promises over random histories. */
class ReplayTest {
    static final long T = 1_800_000_000_000L - 1_800_000_000_000L % 60_000;

    /** One tier {@code t}: tpm, rpm, burst 1.0, an hour window of {@code hourTokens} (and a generous request cap). */
    static SluiceConfig tier(long tpm, long rpm, long hourTokens) {
        return TiersYamlParser.parse("test", """
                tiers:
                  t:
                    tokens-per-minute: %d
                    requests-per-minute: %d
                    burst-allowance: 1.0
                    priority: 1
                    default-max-tokens: 100
                    windows:
                      - {name: hour, seconds: 3600, tokens: %d, requests: 1000000}
                providers:
                  - name: p
                    models:
                      "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 10, price-per-million-tokens: 1.0}
                """.formatted(tpm, rpm, hourTokens));
    }

    static UsageSample minute(int m, long tokens, long requests, long passed, long rejected) {
        return new UsageSample(
                T + m * 60_000L,
                "t",
                tokens,
                requests,
                0.5,
                "minute",
                Map.of("passed", passed, "rejected", rejected),
                null);
    }

    static ShadowMinute only(List<UsageSample> samples, SluiceConfig live, SluiceConfig draft) {
        List<ShadowMinute> out = Replay.estimate(Map.of("acme", samples), live, draft, 7, T);
        return out.get(out.size() - 1);
    }

    @Test
    void aHalvedMinuteCapRefusesTheRequestsPastItsTokensEvenlySpread() {
        // 8 requests of 100 tokens: 1000 admits them all; 500 admits 5 and refuses the 3 past it.
        ShadowMinute m = only(List.of(minute(0, 800, 8, 8, 0)), tier(1000, 100, 60_000), tier(500, 100, 30_000));
        assertThat(m.live()).containsEntry("passed", 8L).containsEntry("rejected", 0L);
        assertThat(m.draft()).containsEntry("passed", 5L).containsEntry("rejected", 3L);
        assertThat(m.tenantId()).isEqualTo("acme");
        assertThat(m.draftVersion()).isEqualTo(7);
    }

    @Test
    void theRequestCapBindsWhenItIsTighterThanTheTokens() {
        ShadowMinute m = only(List.of(minute(0, 800, 8, 8, 0)), tier(1000, 100, 60_000), tier(1000, 6, 60_000));
        assertThat(m.draft()).containsEntry("passed", 6L).containsEntry("rejected", 2L);
    }

    @Test
    void whatLiveRefusedForReasonsTheModelCannotSeeStaysRefused() {
        // Live refused 2 of 10 (a window sliding over the minute's edge, say) though the minute model sees room
        // for all: the draft adds its own 5 on top of them, it does not replace them.
        ShadowMinute m = only(List.of(minute(0, 800, 8, 8, 2)), tier(1000, 100, 60_000), tier(500, 100, 30_000));
        assertThat(m.draft()).containsEntry("passed", 3L).containsEntry("rejected", 7L);
    }

    @Test
    void aLooserDraftGivesBackTheRefusalsTheLiveCapExplains() {
        ShadowMinute m = only(List.of(minute(0, 500, 5, 5, 5)), tier(500, 100, 30_000), tier(1000, 100, 60_000));
        assertThat(m.draft()).containsEntry("passed", 10L).containsEntry("rejected", 0L);
    }

    @Test
    void aLongerWindowsRoomIsItsCapLessWhatItsEarlierMinutesAdmitted() {
        List<UsageSample> hour = new ArrayList<>();
        for (int i = 0; i < 4; i++) hour.add(minute(i, 1000, 10, 10, 0));
        List<ShadowMinute> out =
                Replay.estimate(Map.of("acme", hour), tier(1000, 100, 60_000), tier(1000, 100, 3000), 1, T);
        // Rooms 3000, 2000, 1000, 0: the fourth minute's ten requests are all past the hour's cap.
        assertThat(out).extracting(m -> m.draft().get("rejected")).containsExactly(0L, 0L, 0L, 10L);
        // Minutes before the period fill the window but are not reported.
        assertThat(Replay.estimate(
                        Map.of("acme", hour), tier(1000, 100, 60_000), tier(1000, 100, 3000), 1, T + 180_000))
                .singleElement()
                .satisfies(m -> assertThat(m.draft()).containsEntry("rejected", 10L));
    }

    @Test
    void aMinuteWithoutTokensIsBoundOnlyByRequestsAndATierMissingOnEitherSideChangesNothing() {
        UsageSample refusedOnly = minute(0, 0, 0, 0, 4);
        assertThat(only(List.of(refusedOnly), tier(1000, 100, 60_000), tier(1000, 2, 60_000))
                        .draft())
                .containsEntry("rejected", 4L);
        SluiceConfig other = TiersYamlParser.parse("test", """
                tiers:
                  other: {tokens-per-minute: 10, requests-per-minute: 1, burst-allowance: 1.0, priority: 1, default-max-tokens: 10}
                providers:
                  - name: p
                    models:
                      "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 10, price-per-million-tokens: 1.0}
                """);
        ShadowMinute m = only(List.of(minute(0, 800, 8, 8, 0)), tier(1000, 100, 60_000), other);
        assertThat(m.draft()).isEqualTo(m.live());
    }

    @Test
    void addedRefusalsComeOutOfPassedThenDelayedThenDowngraded() {
        Map<String, Long> counts =
                new LinkedHashMap<>(Map.of("passed", 1L, "delayed", 2L, "downgraded", 3L, "rejected", 0L));
        assertThat(Replay.moved(counts, 4))
                .containsEntry("passed", 0L)
                .containsEntry("delayed", 0L)
                .containsEntry("downgraded", 2L)
                .containsEntry("rejected", 4L);
        assertThat(Replay.moved(counts, 100)).containsEntry("rejected", 6L).containsEntry("downgraded", 0L);
    }

    // ---- properties over random histories ------------------------------------------------

    @Test
    void aDraftEqualToLivePredictsExactlyWhatHappened() {
        Random random = new Random(28);
        for (int run = 0; run < 200; run++) {
            SluiceConfig live = randomTier(random);
            for (ShadowMinute m : Replay.estimate(randomHistory(random), live, live, 1, T))
                assertThat(m.draft()).isEqualTo(m.live());
        }
    }

    @Test
    void aStricterDraftNeverPredictsFewerRefusalsInAnyMinute() {
        Random random = new Random(2828);
        for (int run = 0; run < 300; run++) {
            long tpm = 100 + random.nextInt(5000);
            long rpm = 1 + random.nextInt(100);
            long hour = tpm * (1 + random.nextInt(60));
            SluiceConfig live = tier(tpm, rpm, hour);
            long dTpm = 1 + random.nextInt((int) tpm);
            SluiceConfig draft =
                    tier(dTpm, 1 + random.nextInt((int) rpm), Math.max(dTpm, hour - random.nextInt((int) hour)));
            Map<String, List<UsageSample>> history = randomHistory(random);
            long liveTotal = 0;
            long draftTotal = 0;
            for (ShadowMinute m : Replay.estimate(history, live, draft, 1, T)) {
                assertThat(m.draft().get("rejected"))
                        .isGreaterThanOrEqualTo(m.live().get("rejected"));
                assertThat(sum(m.draft()))
                        .as("every request offered is still decided")
                        .isEqualTo(sum(m.live()));
                liveTotal += m.live().get("rejected");
                draftTotal += m.draft().get("rejected");
            }
            assertThat(draftTotal).isGreaterThanOrEqualTo(liveTotal);
        }
    }

    static long sum(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    static SluiceConfig randomTier(Random random) {
        long tpm = 100 + random.nextInt(5000);
        return tier(tpm, 1 + random.nextInt(100), tpm * (1 + random.nextInt(60)));
    }

    static Map<String, List<UsageSample>> randomHistory(Random random) {
        Map<String, List<UsageSample>> history = new LinkedHashMap<>();
        for (int t = 0; t < 3; t++) {
            List<UsageSample> samples = new ArrayList<>();
            for (int m = 0; m < 90; m++) {
                if (random.nextInt(5) == 0) continue; // a quiet minute leaves no point
                long passed = random.nextInt(50);
                long rejected = random.nextInt(4) == 0 ? random.nextInt(20) : 0;
                long tokens = passed * random.nextInt(300);
                samples.add(new UsageSample(
                        T + m * 60_000L,
                        "t",
                        tokens,
                        passed,
                        0.5,
                        "minute",
                        Map.of(
                                "passed",
                                passed,
                                "delayed",
                                (long) random.nextInt(3),
                                "downgraded",
                                (long) random.nextInt(3),
                                "rejected",
                                rejected),
                        null));
            }
            history.put("tenant-" + t, samples);
        }
        return history;
    }
}
