package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.memory.InMemoryFlagStore;
import dev.sluice.gateway.abuse.memory.InMemoryTenantActivity;
import dev.sluice.gateway.abuse.memory.InMemoryUsageHistory;
import dev.sluice.gateway.abuse.memory.LocalSamplerLock;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import dev.sluice.gateway.tenant.InMemoryTenantStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Seed 004's chart, simulated second by second over six hours with a fake clock: requests go
 * through the real quota windows (tiers.yaml's free tier), activity is recorded as the request
 * path will record it, and the fleet scheduler ticks every simulated second.
 */
class AbuseSimulationTest {
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 3_600_000L);
    static final long MIN = 60_000L;
    /** The seed's legit user, one character per ten minutes over six hours. */
    static final String LEGIT = "▇▇░░░▇▇▇░░░░▇▇░░░░▇▇▇░░░░▇▇░░░▇▇▇░░░";

    final FakeClock clock = new FakeClock(T0);
    final InMemoryFlagStore flags = new InMemoryFlagStore();
    final InMemoryUsageHistory history = new InMemoryUsageHistory();
    final InMemoryTenantActivity activity = new InMemoryTenantActivity(clock);
    SluiceConfig config;
    Tier free;
    QuotaLimiter quota;
    AbuseScheduler scheduler;
    Long firstFlaggedAt;

    @BeforeEach
    void setUp() throws IOException {
        config = TiersYamlParser.parse("tiers.yaml", Files.readString(Path.of("../tiers.yaml")));
        free = config.tier("free").orElseThrow();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        quota = new QuotaLimiter(new InMemoryQuotaStore(clock), null, Duration.ofSeconds(5), meters);
        AbuseSampler sampler = new AbuseSampler(
                activity, quota, history, flags, new InMemoryTenantStore(), () -> config, clock, meters);
        scheduler = new AbuseScheduler(sampler, new LocalSamplerLock(), activity, clock, "test", Duration.ofSeconds(2));
    }

    /** One request as the request path reports it: seen, charged, the quota's answer and its stage recorded. */
    void request(String tenant, long tokens) {
        activity.requestSeen(tenant, free.name());
        QuotaLimiter.Outcome o = quota.acquire(tenant, free, tokens).block();
        activity.quotaAnswered(tenant, tokens, o.decision(), false);
        activity.stageTaken(tenant, o.admitted() ? "passed" : "rejected");
    }

    /** A minute plan for the legit user: in its busy blocks, a burst (five questions in ten seconds), then a quiet minute or two. */
    static boolean[] legitBurstMinutes(long seed) {
        Random random = new Random(seed);
        boolean[] burst = new boolean[6 * 60];
        int m = 0;
        while (m < burst.length) {
            if (LEGIT.charAt(m / 10) == '▇') {
                burst[m] = true;
                if (random.nextInt(4) == 0 && m + 1 < burst.length) burst[++m] = true; // sometimes two in a row
                m += 2 + random.nextInt(2);
            } else {
                m++;
            }
        }
        return burst;
    }

    /** Runs the simulation from the clock's time for {@code seconds}, ticking the scheduler every second. */
    void simulate(int seconds, boolean[] legitBursts) {
        for (int i = 0; i < seconds; i++) {
            long s = (clock.millis() - T0) / 1000;
            int minute = (int) (s / 60);
            int second = (int) (s % 60);
            if (s % 5 == 0) request("abuser", 760); // 9,120 tokens a minute: 91% of free's 10,000, all admitted
            // Busy all day, never at the ceiling: four requests of 1,000 a minute (40%). Not two of 3,500 at
            // :30 and :45: a request exactly a minute after another still finds it in the window (60 s plus
            // the current second), three of 3,500 do not fit, so that client is refused every minute, at its
            // ceiling. Nor 70% all admitted: that fills free's 2,000,000-token day within five hours, and the
            // day window flags it, rightly.
            if (s % 60 < 20 && s % 5 == 0) request("steady", 1_000);
            if (legitBursts != null
                    && minute < legitBursts.length
                    && legitBursts[minute]
                    && second >= 20
                    && second <= 28
                    && second % 2 == 0) {
                request("legit", 1_900); // five questions in ten seconds: 95% of the minute
            }
            scheduler.tick().block();
            if (firstFlaggedAt == null
                    && !flags.list(FlagStatus.OPEN, 10).collectList().block().isEmpty())
                firstFlaggedAt = clock.millis();
            clock.advance(1000);
        }
    }

    List<Flag> flagsOf(String tenant) {
        return flags.list(null, 100)
                .filter(f -> f.tenantId().equals(tenant))
                .collectList()
                .block();
    }

    @Test
    void overSixHoursTheFlatLinedAccountIsFlaggedOnceAndTheBurstyUserNever() {
        simulate(6 * 3600, legitBurstMinutes(4));

        List<Flag> abuser = flagsOf("abuser");
        assertThat(abuser).hasSize(1);
        assertThat(abuser.get(0).status()).isEqualTo(FlagStatus.OPEN);
        assertThat(abuser.get(0).runMinutes()).isEqualTo(15);
        assertThat(abuser.get(0).evidence()).hasSize(15).allMatch(s -> s.utilisation() >= 0.9 && s.pressure() >= 0.9);
        assertThat(flagsOf("legit")).isEmpty();
        assertThat(flagsOf("steady")).isEmpty();

        // The bursty user did reach the ceiling, often, just never for long: it is the idle minutes that save it.
        List<UsageSample> legit = history.since("legit", T0).collectList().block();
        assertThat(legit).hasSizeGreaterThan(30);
        assertThat(legit.stream().filter(s -> s.utilisation() >= 0.9).count()).isGreaterThan(30);
        // five questions per burst minute, a few refused when two bursts come back to back (the window slides)
        assertThat(legit)
                .allSatisfy(
                        s -> assertThat(s.stages().get("passed") + s.stages().get("rejected"))
                                .isEqualTo(5));
        // Six hours of one point a minute for the abuser, each with the minute's stage counts.
        List<UsageSample> flat = history.since("abuser", T0).collectList().block();
        assertThat(flat).hasSize(6 * 60 - 1); // the last minute ends with the simulation, unsampled
        assertThat(flat.get(0).tokens()).isEqualTo(9_120);
        assertThat(flat.get(0).stages().get("passed")).isEqualTo(12);
    }

    @Test
    void theFlatLinedAccountIsFlaggedAtMinuteFifteenNotBefore() {
        simulate(15 * 60 + 1, null);
        assertThat(firstFlaggedAt).isNull(); // at 15:01 the fifteenth minute is not sampled yet
        simulate(5, null);
        // minute 14 (the fifteenth) ends at 15:00 and is sampled once settled, at 15:02
        assertThat(firstFlaggedAt).isEqualTo(T0 + 15 * MIN + 2_000);
        Flag flag = flagsOf("abuser").get(0);
        assertThat(flag.runStart().toEpochMilli()).isEqualTo(T0);
        assertThat(flag.tier()).isEqualTo("free");
    }

    @Test
    void aDismissedFlagIsFollowedByANewOneOnlyAfterFifteenFreshMinutes() {
        simulate(2 * 3600 + 30, null);
        Flag first = flagsOf("abuser").get(0);
        long reviewedAt = clock.millis(); // 2 h 00 min 30 s
        flags.update(
                        first.id(),
                        f -> f.reviewed(new FlagReview(
                                "ops",
                                clock.instant(),
                                ReviewAction.DISMISS,
                                "a nightly batch, agreed with the customer",
                                null)))
                .block();

        simulate(15 * 60, null); // to 2:15:30: minutes 2:01..2:14 counted, fourteen
        assertThat(flagsOf("abuser")).hasSize(1);
        simulate(120, null); // 2:16:02: minute 2:15 sampled, the fifteenth since the review
        List<Flag> all = flagsOf("abuser");
        assertThat(all).hasSize(2);
        Flag second = all.get(0);
        assertThat(second.isOpen()).isTrue();
        assertThat(second.openedAt().toEpochMilli()).isEqualTo(T0 + 2 * 3_600_000L + 16 * MIN + 2_000);
        assertThat(second.runStart().toEpochMilli()).isGreaterThanOrEqualTo(reviewedAt);

        simulate(3600, null); // the pattern goes on: still the one open flag
        assertThat(flagsOf("abuser")).hasSize(2);
        assertThat(flags.find(first.id()).block().status()).isEqualTo(FlagStatus.DISMISSED);
    }
}
