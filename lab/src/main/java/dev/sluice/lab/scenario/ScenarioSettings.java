package dev.sluice.lab.scenario;

import dev.sluice.lab.provider.LabLimits;
import dev.sluice.lab.provider.PromptCount;
import dev.sluice.lab.provider.ProviderWays;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Everything a lab run needs, in seed units (the provider's minute, a 2 s call), validated when
 * built. {@link #defaults()}: every case and the ramp against {@link LabLimits#DEFAULTS}.
 *
 * @param timeFactor         how many times faster than the wall the run's clock goes (10: a seed minute in 6 s)
 * @param limits             the provider's limits, seed units
 * @param cases              which cases run, in order
 * @param ramp               whether each case also runs under the ramp
 * @param soloUsers          case 1's users (the seed: one)
 * @param crowdUsers         cases 2–5's users (the seed: three)
 * @param pagesPerBook       pages of a book; each is one call
 * @param uploadFor          how long users start new books; books in progress are then finished
 * @param think              a user's pause between a book's end and the next upload
 * @param drainCap           the longest a run waits for books in progress after {@code uploadFor}
 * @param perUserBucket      case 3: each user's bucket (seed: 5 pages of burst, 2 a second)
 * @param globalBucket       case 3: the global bucket (seed: pinned to the provider's requests per minute)
 * @param poolConnections    case 5: the HTTP client's connections (seed: "a couple of hundred")
 * @param poolAcquireTimeout case 5: how long a page waits for a connection (Reactor Netty's default, 45 s)
 * @param gatewayHeadroom    case 4: the share of each provider limit the gateway's budget uses
 * @param rampStep           the ramp adds users every step (seed: 3 s)
 * @param rampUsers          users after each step (seed: 1, 2, 3, 5, 8, 12, 20, 30, 50, 80)
 * @param rampGraceSteps     steps the ramp goes on after its first failure, to show what follows
 * @param randomSeed         the provider's latency jitter
 * @param warmUpPages        pages sent to a provider without limits before anything is measured (JIT warm-up)
 * @param ways               how the measured provider counts prompts, how far its clock is off and how late its
 *                           answers arrive (default: as the gateway's estimator and clock assume)
 */
public record ScenarioSettings(
        double timeFactor,
        LabLimits limits,
        Set<CaseId> cases,
        boolean ramp,
        int soloUsers,
        int crowdUsers,
        int pagesPerBook,
        Duration uploadFor,
        Duration think,
        Duration drainCap,
        PageLimiter.Shape perUserBucket,
        PageLimiter.Shape globalBucket,
        int poolConnections,
        Duration poolAcquireTimeout,
        double gatewayHeadroom,
        Duration rampStep,
        List<Integer> rampUsers,
        int rampGraceSteps,
        long randomSeed,
        int warmUpPages,
        ProviderWays ways) {

    public static final List<Integer> SEED_RAMP = List.of(1, 2, 3, 5, 8, 12, 20, 30, 50, 80);

    public ScenarioSettings {
        if (!(timeFactor >= 1 && timeFactor <= 100)) {
            throw new IllegalArgumentException("time factor must be between 1 and 100, was " + timeFactor);
        }
        if (limits == null) throw new IllegalArgumentException("limits must be set");
        if (ways == null) throw new IllegalArgumentException("provider ways must be set");
        if (cases == null || cases.isEmpty()) throw new IllegalArgumentException("at least one case must run");
        cases = Set.copyOf(EnumSet.copyOf(cases));
        positive("solo users", soloUsers, 1000);
        positive("crowd users", crowdUsers, 1000);
        positive("pages per book", pagesPerBook, 10_000);
        positive("upload-for", uploadFor);
        if (think == null || think.isNegative())
            throw new IllegalArgumentException("think must be 0 or more, was " + think);
        positive("drain cap", drainCap);
        if (perUserBucket == null || globalBucket == null)
            throw new IllegalArgumentException("both limiter buckets must be set");
        positive("pool connections", poolConnections, 100_000);
        positive("pool acquire timeout", poolAcquireTimeout);
        if (!(gatewayHeadroom > 0 && gatewayHeadroom <= 1)) {
            throw new IllegalArgumentException("gateway headroom must be in (0, 1], was " + gatewayHeadroom);
        }
        positive("ramp step", rampStep);
        if (rampUsers == null || rampUsers.isEmpty())
            throw new IllegalArgumentException("the ramp needs at least one step");
        rampUsers = List.copyOf(rampUsers);
        int last = 0;
        for (int u : rampUsers) {
            if (u <= last) throw new IllegalArgumentException("ramp users must grow at every step, got " + rampUsers);
            last = u;
        }
        positive("ramp users", last, 10_000);
        if (warmUpPages < 0 || warmUpPages > 100_000) {
            throw new IllegalArgumentException("warm-up pages must be between 0 and 100000, was " + warmUpPages);
        }
        if (rampGraceSteps < 0)
            throw new IllegalArgumentException("ramp grace steps must be 0 or more, was " + rampGraceSteps);
        // A call shorter than a few wall milliseconds would measure the machine, not the provider.
        if (limits.latency().toMillis() / timeFactor < 20) {
            throw new IllegalArgumentException("a call of " + limits.latency().toMillis() + " ms at time factor "
                    + timeFactor + " would last under 20 real ms: lower the factor");
        }
    }

    /** The default time factor: a seed minute in 12 s, a 2 s call in 400 ms (see docs/lab.md for why 5). */
    public static final double DEFAULT_TIME_FACTOR = 5;

    /** Every case and the ramp, books of 100 pages, against {@link LabLimits#DEFAULTS}, at {@link #DEFAULT_TIME_FACTOR}. */
    public static ScenarioSettings defaults() {
        LabLimits l = LabLimits.DEFAULTS;
        double perSecond = l.requestsPerMinute() / 60.0;
        return new ScenarioSettings(
                DEFAULT_TIME_FACTOR,
                l,
                EnumSet.allOf(CaseId.class),
                true,
                1,
                3,
                100,
                Duration.ofSeconds(15),
                Duration.ofSeconds(2),
                Duration.ofSeconds(240),
                new PageLimiter.Shape(5, 2),
                new PageLimiter.Shape(perSecond, perSecond),
                200,
                Duration.ofSeconds(45),
                0.97,
                Duration.ofSeconds(3),
                SEED_RAMP,
                1,
                42,
                2_000,
                ProviderWays.DEFAULT);
    }

    /** In the order they run. */
    public List<CaseId> caseOrder() {
        return List.copyOf(EnumSet.copyOf(cases));
    }

    public int usersFor(CaseId id) {
        return id == CaseId.CASE1 ? soloUsers : crowdUsers;
    }

    /** Runs plus ramps: the admin API's progress total. */
    public int steps() {
        return cases.size() * (ramp ? 2 : 1);
    }

    public ScenarioSettings withCases(Set<CaseId> c, boolean r) {
        Copy next = new Copy();
        next.cases = c;
        next.ramp = r;
        return next.build();
    }

    /**
     * Applies {@code --name=value} options (the command line's), each checked: {@code --cases=case2,case4},
     * {@code --ramp=false}, {@code --time-factor=10}, {@code --users=3}, {@code --solo-users=1},
     * {@code --pages=100}, {@code --upload-for=15}, {@code --think=2}, {@code --rpm=1500},
     * {@code --tpm=300000}, {@code --in-flight=200}, {@code --latency-ms=2000}, {@code --price=3.0},
     * {@code --pool=200}, {@code --ramp-users=1,2,3,5}, {@code --seed=42}, {@code --warm-up=2000}; the provider's ways:
     * {@code --provider-count=bpe} or {@code chars:4}, {@code --count-factor=1.15}, {@code --tokens-per-message=4},
     * {@code --clock-offset=800ms} (or {@code -1s}), {@code --extra-latency=300ms}, {@code --request-latency=200ms}, and its split limits
     * {@code --itpm=200000}, {@code --otpm=60000}. Seconds are seed seconds.
     * Limits change the global bucket with them (it is pinned to the requests per minute).
     */
    public ScenarioSettings with(List<String> options) {
        Copy next = new Copy();
        for (String option : options) {
            if (option.isBlank()) continue;
            if (!option.startsWith("--") || !option.contains("=")) {
                throw new IllegalArgumentException("options are --name=value, got '" + option + "'");
            }
            String name = option.substring(2, option.indexOf('=')).toLowerCase(Locale.ROOT);
            String value = option.substring(option.indexOf('=') + 1).trim();
            try {
                switch (name) {
                    case "cases" -> {
                        Set<CaseId> picked = EnumSet.noneOf(CaseId.class);
                        for (String n : value.split(",")) picked.add(CaseId.of(n));
                        next.cases = picked;
                    }
                    case "ramp" -> next.ramp = bool(value);
                    case "time-factor" -> next.timeFactor = Double.parseDouble(value);
                    case "users" -> next.crowdUsers = Integer.parseInt(value);
                    case "solo-users" -> next.soloUsers = Integer.parseInt(value);
                    case "pages" -> next.pagesPerBook = Integer.parseInt(value);
                    case "upload-for" -> next.uploadFor = seconds(value);
                    case "think" -> next.think = seconds(value);
                    case "rpm" -> next.limits = next.limits.withRequestsPerMinute(Integer.parseInt(value));
                    case "tpm" -> next.limits = next.limits.withTokensPerMinute(Long.parseLong(value));
                    case "in-flight" -> next.limits = next.limits.withMaxInFlight(Integer.parseInt(value));
                    case "latency-ms" ->
                        next.limits = next.limits.withLatency(Duration.ofMillis(Long.parseLong(value)));
                    case "price" -> next.limits = next.limits.withPricePerMillionTokens(Double.parseDouble(value));
                    case "pool" -> next.poolConnections = Integer.parseInt(value);
                    case "ramp-users" -> {
                        List<Integer> steps = new ArrayList<>();
                        for (String n : value.split(",")) steps.add(Integer.parseInt(n.trim()));
                        next.rampUsers = steps;
                    }
                    case "seed" -> next.randomSeed = Long.parseLong(value);
                    case "warm-up" -> next.warmUpPages = Integer.parseInt(value);
                    case "provider-count" ->
                        next.ways = next.ways.withPromptCount(providerCount(next.ways.promptCount(), value));
                    case "count-factor" ->
                        next.ways = next.ways.withPromptCount(new PromptCount(
                                next.ways.promptCount().method(),
                                next.ways.promptCount().charsPerToken(),
                                Double.parseDouble(value),
                                next.ways.promptCount().tokensPerMessage()));
                    case "tokens-per-message" ->
                        next.ways = next.ways.withPromptCount(new PromptCount(
                                next.ways.promptCount().method(),
                                next.ways.promptCount().charsPerToken(),
                                next.ways.promptCount().factor(),
                                Integer.parseInt(value)));
                    case "clock-offset" -> next.ways = next.ways.withClockOffset(duration(name, value));
                    case "extra-latency" -> next.ways = next.ways.withExtraLatency(duration(name, value));
                    case "request-latency" -> next.ways = next.ways.withRequestLatency(duration(name, value));
                    case "itpm" -> next.limits = next.limits.withInputTokensPerMinute(Long.parseLong(value));
                    case "otpm" -> next.limits = next.limits.withOutputTokensPerMinute(Long.parseLong(value));
                    default -> throw new IllegalArgumentException("unknown option --" + name + " (see README, Lab)");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + name + " needs a number, got '" + value + "'");
            }
        }
        // The global bucket is pinned to the requests per minute: it follows them when they change.
        if (next.limits.requestsPerMinute() != limits.requestsPerMinute()) {
            double perSecond = next.limits.requestsPerMinute() / 60.0;
            next.globalBucket = new PageLimiter.Shape(perSecond, perSecond);
        }
        return next.build();
    }

    private static boolean bool(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true", "on", "yes" -> true;
            case "false", "off", "no" -> false;
            default -> throw new IllegalArgumentException("--ramp is true or false, got '" + v + "'");
        };
    }

    /** {@code bpe}, {@code chars} (4 characters a token) or {@code chars:3.5}. */
    private static PromptCount providerCount(PromptCount current, String v) {
        String[] parts = v.split(":", 2);
        PromptCount.Method method = PromptCount.method(parts[0]);
        if (parts.length == 2 && method != PromptCount.Method.CHARS) {
            throw new IllegalArgumentException(
                    "--provider-count takes characters per token only with chars, got '" + v + "'");
        }
        double charsPerToken = parts.length == 2 ? Double.parseDouble(parts[1]) : current.charsPerToken();
        return new PromptCount(method, charsPerToken, current.factor(), current.tokensPerMessage());
    }

    /** Seed time with a unit, {@code 800ms} or {@code -1.5s}; a bare number is seconds like the other options. */
    private static Duration duration(String name, String v) {
        String t = v.toLowerCase(Locale.ROOT);
        if (t.endsWith("ms")) return Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 2))));
        if (t.endsWith("s")) t = t.substring(0, t.length() - 1);
        try {
            return seconds(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " is a duration like 800ms or -1s, got '" + v + "'");
        }
    }

    private static Duration seconds(String v) {
        return Duration.ofMillis(Math.round(Double.parseDouble(v) * 1000));
    }

    private static void positive(String what, int v, int max) {
        if (v < 1 || v > max) throw new IllegalArgumentException(what + " must be between 1 and " + max + ", was " + v);
    }

    private static void positive(String what, Duration d) {
        if (d == null || d.isNegative() || d.isZero())
            throw new IllegalArgumentException(what + " must be positive, was " + d);
    }

    /** These settings' fields, to change before {@link #build} makes (and checks) settings of them again. */
    private final class Copy {
        double timeFactor = timeFactor();
        LabLimits limits = limits();
        Set<CaseId> cases = cases();
        boolean ramp = ramp();
        int soloUsers = soloUsers();
        int crowdUsers = crowdUsers();
        int pagesPerBook = pagesPerBook();
        Duration uploadFor = uploadFor();
        Duration think = think();
        Duration drainCap = drainCap();
        PageLimiter.Shape perUserBucket = perUserBucket();
        PageLimiter.Shape globalBucket = globalBucket();
        int poolConnections = poolConnections();
        Duration poolAcquireTimeout = poolAcquireTimeout();
        double gatewayHeadroom = gatewayHeadroom();
        Duration rampStep = rampStep();
        List<Integer> rampUsers = rampUsers();
        int rampGraceSteps = rampGraceSteps();
        long randomSeed = randomSeed();
        int warmUpPages = warmUpPages();
        ProviderWays ways = ways();

        ScenarioSettings build() {
            return new ScenarioSettings(
                    timeFactor,
                    limits,
                    cases,
                    ramp,
                    soloUsers,
                    crowdUsers,
                    pagesPerBook,
                    uploadFor,
                    think,
                    drainCap,
                    perUserBucket,
                    globalBucket,
                    poolConnections,
                    poolAcquireTimeout,
                    gatewayHeadroom,
                    rampStep,
                    rampUsers,
                    rampGraceSteps,
                    randomSeed,
                    warmUpPages,
                    ways);
        }
    }
}
