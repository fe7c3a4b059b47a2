package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.auth.TenantAuthenticationFilter;
import dev.sluice.gateway.degrade.LadderFilter;
import dev.sluice.gateway.dispatch.DispatchFilter;
import dev.sluice.gateway.dispatch.upstream.ProviderConnection;
import dev.sluice.gateway.dispatch.upstream.UpstreamCredentialsFilter;
import dev.sluice.gateway.estimate.EstimateFilter;
import dev.sluice.gateway.objects.ObjectOwnershipFilter;
import dev.sluice.gateway.quota.QuotaFilter;
import dev.sluice.gateway.shadow.ShadowFilter;
import dev.sluice.gateway.spend.SpendRefusalsMeter;
import dev.sluice.gateway.spend.UsageFilter;
import dev.sluice.gateway.surface.EndpointAccessFilter;
import dev.sluice.gateway.surface.ModelAccessFilter;
import dev.sluice.gateway.surface.ModelRouteFilter;
import dev.sluice.gateway.surface.ModelsFilter;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.usage.SettleFilter;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;

/**
 * The request path reads as its stages: a booted gateway's own global filters are exactly one
 * per stage, in the order api/FilterOrder lists them, and no two share an order (Spring would
 * then run them in whatever order it found the beans).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = FakeUpstream.NO_UPSTREAM_CALLS)
class RequestPathStagesTest {
    @Autowired
    ApplicationContext context;

    @Test
    void theGatewaysFiltersAreItsStagesInOrder() {
        List<GlobalFilter> ours = context.getBeansOfType(GlobalFilter.class).values().stream()
                .filter(f -> f.getClass().getPackageName().startsWith("dev.sluice."))
                .sorted(Comparator.comparingInt(RequestPathStagesTest::order))
                .toList();

        assertThat(ours)
                .extracting(Object::getClass)
                .containsExactly(
                        TenantAuthenticationFilter.class,
                        EndpointAccessFilter.class,
                        ModelsFilter.class,
                        UsageFilter.class,
                        EstimateFilter.class,
                        ObjectOwnershipFilter.class,
                        ModelAccessFilter.class,
                        ModelRouteFilter.class,
                        SpendRefusalsMeter.class,
                        QuotaFilter.class,
                        ShadowFilter.class,
                        LadderFilter.class,
                        SettleFilter.class,
                        DispatchFilter.class,
                        ProviderConnection.Filter.class,
                        UpstreamCredentialsFilter.class);
        assertThat(ours)
                .extracting(RequestPathStagesTest::order)
                .containsExactly(
                        FilterOrder.AUTHENTICATE,
                        FilterOrder.ENDPOINTS,
                        FilterOrder.MODELS,
                        FilterOrder.SLUICE_USAGE,
                        FilterOrder.ESTIMATE,
                        FilterOrder.OWNERSHIP,
                        FilterOrder.MODEL_ACCESS,
                        FilterOrder.ROUTE,
                        FilterOrder.SPEND_REFUSALS,
                        FilterOrder.QUOTA,
                        FilterOrder.SHADOW,
                        FilterOrder.LADDER,
                        FilterOrder.SETTLE,
                        FilterOrder.DISPATCH,
                        FilterOrder.PROVIDER_CONNECTION,
                        FilterOrder.UPSTREAM_CREDENTIALS);
    }

    private static int order(GlobalFilter filter) {
        return filter instanceof Ordered o ? o.getOrder() : Ordered.LOWEST_PRECEDENCE;
    }
}
