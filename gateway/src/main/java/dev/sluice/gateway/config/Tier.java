package dev.sluice.gateway.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One tier's limits. Over any 60 s sliding window a tenant is admitted at most
 * {@code tokensPerMinute × burstAllowance} tokens (and likewise requests); the longer
 * windows cap the sustained rate so the burst buys short bursts, not a higher rate.
 * {@code endpoints} is which of the tenant API's operations the tier opens; {@code models} which
 * models it may name and the token windows it keeps per model; {@code spend} its budgets in money
 * per calendar day and month ({@link SpendBudget#NONE}: none).
 */
public record Tier(
        String name,
        long tokensPerMinute,
        long requestsPerMinute,
        double burstAllowance,
        int priority,
        long defaultMaxTokens,
        List<WindowLimit> longerWindows,
        Map<String, String> downgrade,
        boolean allowNoDowngrade,
        RedisDownPolicy redisDown,
        EndpointAccess endpoints,
        TierModels models,
        SpendBudget spend) {

    public Tier {
        Objects.requireNonNull(name, "name");
        if (tokensPerMinute <= 0 || requestsPerMinute <= 0) {
            throw new IllegalArgumentException("tier " + name + ": per-minute limits must be positive");
        }
        if (burstAllowance < 1.0) {
            throw new IllegalArgumentException("tier " + name + ": burst-allowance must be at least 1.0");
        }
        longerWindows = List.copyOf(longerWindows);
        downgrade = Map.copyOf(downgrade);
        Objects.requireNonNull(redisDown, "redisDown");
        Objects.requireNonNull(endpoints, "endpoints");
        Objects.requireNonNull(models, "models");
        Objects.requireNonNull(spend, "spend");
    }

    /** The minute window with the burst applied, then the longer windows; the order the quota checks them. */
    public List<WindowLimit> windows() {
        List<WindowLimit> all = new ArrayList<>(longerWindows.size() + 1);
        all.add(minuteWindow());
        all.addAll(longerWindows);
        return all;
    }

    /**
     * The windows a request naming {@code model} is charged in, in one atomic step: the tier's
     * ({@link #windows()}), then the model's own window when {@code model-limits} gives it one.
     */
    public List<WindowLimit> windowsFor(String model) {
        return models.windowsFor(windows(), model);
    }

    public WindowLimit minuteWindow() {
        return new WindowLimit("minute", 60, (long) Math.floor(tokensPerMinute * burstAllowance), (long)
                Math.floor(requestsPerMinute * burstAllowance));
    }

    /** The model this tier downgrades {@code model} to, or the model itself when the map has no entry. */
    public String downgradeOf(String model) {
        return downgrade.getOrDefault(model, model);
    }
}
