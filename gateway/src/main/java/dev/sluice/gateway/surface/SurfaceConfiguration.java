package dev.sluice.gateway.surface;

import dev.sluice.gateway.config.SluiceProperties;
import dev.sluice.gateway.config.SurfaceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
public class SurfaceConfiguration {

    /** JSON bodies within what the estimate stage reads; uploads within sluice.surface.max-file-bytes. */
    @Bean
    EndpointTable endpointTable(SluiceProperties sluice, SurfaceProperties surface) {
        return EndpointTable.openAi(
                sluice.maxRequestBytes().toBytes(), surface.maxFileBytes().toBytes());
    }

    @Bean
    ApiSurfaceFilter apiSurfaceFilter(EndpointTable table) {
        return new ApiSurfaceFilter(table);
    }

    @Bean
    EndpointAccessFilter endpointAccessFilter() {
        return new EndpointAccessFilter();
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
    ModelAccessFilter modelAccessFilter() {
        return new ModelAccessFilter();
    }

    @Bean
    ModelsFilter modelsFilter() {
        return new ModelsFilter();
    }
}
