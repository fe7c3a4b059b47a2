package dev.sluice.gateway.quota;

import dev.sluice.gateway.config.ModelLimits;
import dev.sluice.gateway.config.Money;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.estimate.Endpoint;
import dev.sluice.gateway.estimate.RequestEstimate;

/**
 * What a request costs against the spend budgets, in micro-dollars. Reserved before the call at
 * the dearest input and output prices among the model's route (the serving provider is chosen
 * later, at dispatch, and may fail over to another): never under-reserved. Settled at the price
 * of the provider that served it, from the usage.
 */
public final class SpendPrice {
    private SpendPrice() {}

    /** The reservation: the prompt and the output cap at the route's dearest prices; 0 for a request that names no model. */
    public static long reserved(SluiceConfig config, RequestEstimate estimate) {
        if (estimate.endpoint() == Endpoint.OTHER || estimate.model() == null) return 0;
        return dearest(config, estimate.model(), estimate.promptTokens(), estimate.maxOutputTokens());
    }

    /**
     * What {@code input} and {@code output} tokens cost at {@code provider}'s price for {@code model};
     * at the route's dearest when the provider is unknown (the call failed before one was chosen).
     */
    public static long settled(SluiceConfig config, String provider, String model, long input, long output) {
        ModelLimits served = provider == null
                ? null
                : config.provider(provider).map(p -> p.limitsFor(model)).orElse(null);
        return served != null ? served.costMicros(input, output) : dearest(config, model, input, output);
    }

    private static long dearest(SluiceConfig config, String model, long input, long output) {
        long in = 0;
        long out = 0;
        for (ProviderSettings p : config.route(model)) {
            ModelLimits l = p.limitsFor(model);
            if (l == null) continue;
            in = Math.max(in, l.inputMicrosPerMillion());
            out = Math.max(out, l.outputMicrosPerMillion());
        }
        return Money.cost(input, output, in, out);
    }
}
