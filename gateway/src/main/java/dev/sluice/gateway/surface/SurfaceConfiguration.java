package dev.sluice.gateway.surface;

import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
public class SurfaceConfiguration {

    @Bean
    ApiSurfaceFilter apiSurfaceFilter() {
        return new ApiSurfaceFilter();
    }

    /** {@link RequestLineGuard} on every connection, right after the HTTP decoder. */
    @Bean
    NettyServerCustomizer requestLineGuard() {
        return server -> server.doOnChannelInit((observer, channel, address) -> {
            if (channel.pipeline().get(reactor.netty.NettyPipeline.HttpCodec) != null) {
                channel.pipeline().addAfter(reactor.netty.NettyPipeline.HttpCodec, RequestLineGuard.NAME, new RequestLineGuard());
            }
        });
    }

    @Bean
    OpenAiErrorHandler openAiErrorHandler() {
        return new OpenAiErrorHandler();
    }

    @Bean
    ModelsFilter modelsFilter() {
        return new ModelsFilter();
    }
}
