package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.RequestOptions;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.api.StageCounter;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.dispatch.queue.GatewayBusyException;
import dev.sluice.gateway.dispatch.upstream.UpstreamMeters;
import dev.sluice.gateway.dispatch.upstream.UpstreamTargets;
import dev.sluice.gateway.dispatch.upstream.UpstreamTimeouts;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.estimate.RequestRewriter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Protects the providers: a request admitted by its tenant's quota goes to a provider of its
 * model's route (the first that can start it within the spill wait, else the soonest), waits
 * its turn in the fair queue of that provider's budget, goes when the shared budget has room,
 * and gives its slot back when the call ends. The stage in three parts: which budgets can take
 * the request and what it costs each ({@link RouteChoice}), the calls with their retries and
 * failover ({@link CallWithFailover}), and what the tenant is told when it is not served
 * ({@link DispatchRefusals}). The tenant is charged once, whichever provider serves;
 * {@value #PROVIDER_HEADER} names it.
 */
public class DispatchFilter implements GlobalFilter, Ordered {
    /** Names the provider that served the answer (its last attempt's). */
    public static final String PROVIDER_HEADER = "X-Sluice-Provider";

    private final Clock clock;
    private final RouteChoice routes;
    private final CallWithFailover calls;
    private final DispatchRefusals refusals;

    public DispatchFilter(
            Dispatchers dispatchers,
            Clock clock,
            MeterRegistry meters,
            StageCounter stages,
            UpstreamTimeouts timeouts,
            RequestRewriter rewriter,
            UpstreamTargets targets) {
        this.clock = clock;
        UpstreamMeters upstream = new UpstreamMeters(
                meters,
                dispatchers.providers().stream().map(ProviderSettings::name).toList());
        this.routes = new RouteChoice(dispatchers);
        this.refusals = new DispatchRefusals(stages, upstream);
        this.calls = new CallWithFailover(dispatchers, clock, upstream, refusals, timeouts, rewriter, targets);
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        RequestEstimate estimate = RouteChoice.providerCost(RequestEstimate.ATTRIBUTE.get(exchange));
        String model = SluiceAttributes.MODEL.get(exchange);
        List<ProviderSettings> providers = SluiceAttributes.config(exchange).route(model);
        if (providers.isEmpty()) return DispatchRefusals.modelNotFound(exchange, model);
        Tier tier = SluiceAttributes.tier(exchange);
        RequestOptions options = SluiceAttributes.OPTIONS.get(exchange);
        RouteChoice.Route route = routes.route(exchange, chain, model, providers, estimate, options, clock.millis());
        RoutedRequest routed = route.request();
        if (routed.candidates.isEmpty()) {
            if (route.tooLarge() != null) return refusals.tooLarge(exchange, tier, estimate, route.tooLarge());
            return calls.unbudgeted(routed, providers.get(0));
        }
        // Nothing reached a provider until a call goes out: a client that leaves while its request
        // waits in line is charged nothing.
        SluiceAttributes.NEVER_SENT.set(exchange, true);
        return calls.dispatch(routed, 1, options.maxWaitMs())
                .onErrorResume(GatewayBusyException.class, busy -> refusals.busy(exchange, tier, busy))
                .onErrorResume(e -> refusals.upstreamFailed(exchange, e));
    }

    @Override
    public int getOrder() {
        return FilterOrder.DISPATCH;
    }
}
