package dev.sluice.gateway.bench;

import dev.sluice.gateway.config.EndpointAccess;
import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.TierModels;
import dev.sluice.gateway.config.TiersLoader;
import dev.sluice.gateway.config.WindowLimit;
import java.util.ArrayList;
import java.util.List;

/** The free tier of the repository's tiers.yaml, as the benchmark uses it. */
final class BenchTiers {
    /** Caps no benchmark loop reaches (and exact in a double, which the minute window's burst goes through). */
    static final long LIFTED = 1_000_000_000_000_000L;

    private BenchTiers() {}

    /** {@code free} from the tiers.yaml named by {@code -Dsluice.bench.tiers}, else the usual lookup. */
    static Tier free() {
        String path = System.getProperty("sluice.bench.tiers");
        return TiersLoader.load(TiersLoader.locate(path))
                .tier("free")
                .orElseThrow(() -> new IllegalStateException("tiers.yaml has no free tier"));
    }

    /** The same windows (names, lengths, order), with caps no benchmark reaches. */
    static Tier lifted(Tier t) {
        List<WindowLimit> longer = new ArrayList<>();
        for (WindowLimit w : t.longerWindows()) longer.add(new WindowLimit(w.name(), w.seconds(), LIFTED, LIFTED));
        return new Tier(
                t.name() + "-lifted",
                LIFTED,
                LIFTED,
                1.0,
                t.priority(),
                t.defaultMaxTokens(),
                longer,
                t.downgrade(),
                t.allowNoDowngrade(),
                t.redisDown(),
                EndpointAccess.DEFAULT,
                TierModels.ALL,
                SpendBudget.NONE);
    }

    static String describe(Tier t) {
        StringBuilder sb = new StringBuilder();
        for (WindowLimit w : t.windows()) {
            if (sb.length() > 0) sb.append(", ");
            sb.append(w.name())
                    .append(' ')
                    .append(w.seconds())
                    .append("s ")
                    .append(w.tokens())
                    .append(" tok/")
                    .append(w.requests())
                    .append(" req");
        }
        return sb.toString();
    }
}
