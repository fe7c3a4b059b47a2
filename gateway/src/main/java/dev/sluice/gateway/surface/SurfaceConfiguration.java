package dev.sluice.gateway.surface;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
public class SurfaceConfiguration {

    @Bean
    ApiSurfaceFilter apiSurfaceFilter() {
        return new ApiSurfaceFilter();
    }

    @Bean
    OpenAiErrorHandler openAiErrorHandler() {
        return new OpenAiErrorHandler();
    }

    @Bean
    ModelRouteFilter modelRouteFilter() {
        return new ModelRouteFilter();
    }

    @Bean
    ModelsFilter modelsFilter() {
        return new ModelsFilter();
    }
}
