package dev.sluice.gateway.edge;

import dev.sluice.gateway.config.EdgeProperties;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Hooks;
import reactor.netty.NettyPipeline;

/**
 * The listener's defences, before any HTTP handler runs: the request-side timeouts of
 * {@link EdgeProperties}, the per-address connection bound ({@link ConnectionLimitHandler}) and
 * answers in OpenAI's shape for requests Netty cannot decode ({@link DecoderFailureHandler}).
 *
 * <p>Reactor Netty's own timeouts do what {@link EdgeProperties} promises: its idle timeout runs
 * only while no request is in progress (so never during a response), its read and request
 * timeouts only while a request's body is still arriving, and those two answer 408.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(EdgeProperties.class)
public class EdgeConfiguration {
    private static final Logger droppedLog = LoggerFactory.getLogger("reactor.core.publisher.Operators");

    /**
     * A request body that fails (a timeout, a hang-up) also fails the operators still reading it,
     * whose error Reactor then "drops" and logs at ERROR with a stack trace. The client's doing is
     * one DEBUG line; anything else keeps Reactor's ERROR.
     */
    @Bean
    Object edgeDroppedErrors() {
        Hooks.onErrorDropped(e -> {
            if (EdgeErrors.clientSide(e)) droppedLog.debug("Dropped after the client's failure: {}", e.toString());
            else droppedLog.error("Operator called default onErrorDropped", e);
        });
        return "edgeDroppedErrors";
    }

    @Bean
    ConnectionCounter edgeConnectionCounter(EdgeProperties edge) {
        return new ConnectionCounter(edge.maxConnectionsPerClient());
    }

    @Bean
    NettyServerCustomizer edgeCustomizer(EdgeProperties edge, ConnectionCounter connections) {
        return server -> server.idleTimeout(edge.idleTimeout())
                .readTimeout(edge.readTimeout())
                .requestTimeout(edge.requestTimeout())
                .doOnChannelInit((observer, channel, remote) -> {
                    channel.pipeline().addFirst(ConnectionLimitHandler.NAME, new ConnectionLimitHandler(connections));
                    if (channel.pipeline().get(NettyPipeline.HttpCodec) != null) {
                        channel.pipeline()
                                .addAfter(
                                        NettyPipeline.HttpCodec,
                                        DecoderFailureHandler.NAME,
                                        new DecoderFailureHandler());
                    }
                });
    }

    static String address(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet) {
            return inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString();
        }
        return String.valueOf(remote);
    }
}
