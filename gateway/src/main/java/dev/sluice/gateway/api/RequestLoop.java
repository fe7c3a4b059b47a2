package dev.sluice.gateway.api;

import io.netty.channel.EventLoop;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.Connection;

/**
 * The event loop of the connection a request came in on, as a scheduler: where its work
 * belongs once a single-threaded stage (the dispatch loop, Lettuce's reply thread) has done its
 * part. Left on such a thread, the rest of every request (routing, the upstream call) would run
 * there, one at a time; on its own loop it runs beside the others, and Reactor Netty opens the
 * upstream connection on the same loop, as it does for a request that never left it.
 */
public final class RequestLoop {
    /** One scheduler per event loop: there are as many loops as CPUs. */
    private static final Map<EventLoop, Scheduler> SCHEDULERS = new ConcurrentHashMap<>();

    private RequestLoop() {}

    /** The exchange's event loop, or Reactor's parallel scheduler where the server is not Reactor Netty. */
    public static Scheduler of(ServerWebExchange exchange) {
        Object nativeRequest = ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest());
        if (nativeRequest instanceof Connection connection) {
            return SCHEDULERS.computeIfAbsent(connection.channel().eventLoop(), Schedulers::fromExecutor);
        }
        return Schedulers.parallel();
    }
}
