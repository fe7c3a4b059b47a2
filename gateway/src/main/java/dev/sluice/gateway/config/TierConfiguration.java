package dev.sluice.gateway.config;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
public class TierConfiguration {
    private static final Logger log = LoggerFactory.getLogger(TierConfiguration.class);

    @Bean
    ConfigRegistry configRegistry(SluiceProperties props) {
        TiersLoader.Source source = TiersLoader.locate(props.tiersPath());
        SluiceConfig config =
                withProviderOverride(TiersLoader.load(source), props.provider().url());
        log.info(
                "Loaded {} tiers {} from {}",
                config.tiers().size(),
                config.tiers().keySet(),
                source.name());
        return new ConfigRegistry(config);
    }

    /** SLUICE_PROVIDER_URL replaces the first provider's base URL, so env vars alone can point Sluice anywhere. */
    public static SluiceConfig withProviderOverride(SluiceConfig config, String url) {
        if (url.isEmpty()) return config;
        if (!(url.startsWith("http://") || url.startsWith("https://"))) {
            throw new ConfigException(
                    "SLUICE_PROVIDER_URL",
                    List.of(new ConfigProblem(
                            "sluice.provider.url", 0, "must start with http:// or https://, got '" + url + "'")));
        }
        List<ProviderSettings> providers = new ArrayList<>(config.providers());
        ProviderSettings first = providers.get(0);
        providers.set(0, first.withBaseUrl(url));
        return config.withProviders(providers);
    }
}
