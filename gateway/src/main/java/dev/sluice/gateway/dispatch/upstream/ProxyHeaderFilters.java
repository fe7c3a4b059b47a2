package dev.sluice.gateway.dispatch.upstream;

import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;

/**
 * Applies {@link ProxyHeaders} where Spring Cloud Gateway copies headers across the proxy: the
 * request's when it builds the upstream call, the provider's when it copies the answer.
 * Ordered last, so that nothing another header filter adds escapes the lists.
 */
@Configuration(proxyBeanMethods = false)
public class ProxyHeaderFilters {

    @Bean
    HttpHeadersFilter providerRequestHeaders() {
        return new Last(HttpHeadersFilter.Type.REQUEST);
    }

    @Bean
    HttpHeadersFilter tenantResponseHeaders() {
        return new Last(HttpHeadersFilter.Type.RESPONSE);
    }

    private record Last(HttpHeadersFilter.Type type) implements HttpHeadersFilter, Ordered {
        @Override
        public HttpHeaders filter(HttpHeaders input, ServerWebExchange exchange) {
            return type == HttpHeadersFilter.Type.REQUEST
                    ? ProxyHeaders.toProvider(input)
                    : ProxyHeaders.toTenant(input);
        }

        @Override
        public boolean supports(HttpHeadersFilter.Type t) {
            return t == type;
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }
}
