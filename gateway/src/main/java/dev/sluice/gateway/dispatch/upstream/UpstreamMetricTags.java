package dev.sluice.gateway.dispatch.upstream;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Spring Cloud Gateway tags its meters with the route's URI (Prometheus {@code route_uri},
 * {@code spring_cloud_gateway_route_uri}): the upstream's address, on a page any scraper can
 * read, and a new series whenever the address changes. The route id says which route it was;
 * the URI is replaced by a fixed word.
 */
@Configuration(proxyBeanMethods = false)
public class UpstreamMetricTags {
    static final String HIDDEN = "upstream";

    @Bean
    MeterFilter hideRouteUri() {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                boolean any = false;
                List<Tag> out = new ArrayList<>();
                for (Tag t : id.getTagsAsIterable()) {
                    if (isRouteUri(t.getKey())) {
                        out.add(Tag.of(t.getKey(), HIDDEN));
                        any = true;
                    } else {
                        out.add(t);
                    }
                }
                return any ? id.replaceTags(out) : id;
            }
        };
    }

    static boolean isRouteUri(String key) {
        String k = key.toLowerCase(Locale.ROOT).replace('_', '.');
        return k.equals("routeuri") || k.endsWith("route.uri");
    }
}
