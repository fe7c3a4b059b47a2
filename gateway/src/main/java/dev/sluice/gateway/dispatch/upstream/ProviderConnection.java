package dev.sluice.gateway.dispatch.upstream;

import dev.sluice.gateway.api.FilterOrder;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.netty.ByteBufFlux;
import reactor.netty.Connection;
import reactor.netty.NettyInbound;
import reactor.netty.channel.ChannelOperations;
import reactor.netty.http.client.HttpClient;
import reactor.util.context.Context;

/**
 * A call's provider connection is cancelled and disposed on its own event loop, and only while the
 * call still holds it: one tenant hanging up must never close the connection another tenant's call
 * is on.
 *
 * <p>Reactor Netty pools provider connections across event loops, and it acts on a cancel where the
 * cancel comes from. A tenant who hangs up cancels its call on its own connection's loop; Reactor
 * Netty decides there to close the provider connection and closes it later on that connection's
 * loop, by when the call may have ended, the connection gone back to the pool and been taken by
 * another tenant's call, which then fails: 502 {@code upstream_unavailable}, "Connection has been
 * closed BEFORE response". A call that ended with its answer not yet read (its tenant gone first)
 * is closed the same way when what is left of it is discarded, whoever holds the connection then.
 * So every cancel of a provider call waits for that connection's loop ({@link #cancelledOnItsLoop}),
 * where it is ordered with the call's end, and there the connection is closed only if this call
 * still holds it; else what is left of the answer is read and dropped ({@link Filter}). Found by
 * {@code GatewayFuzzTest} (a 502 in about one CI run of seven); {@code HangUpTest} measures it.
 */
public final class ProviderConnection {
    /** The context key under which a call keeps where its request went ({@link Sent}). */
    private static final Object SENT = ProviderConnection.class;

    private ProviderConnection() {}

    /** Where a call's request went out: set on the connection's loop as the request is sent. */
    private static final class Sent {
        volatile ChannelOperations<?, ?> call;
    }

    /** The HTTP client, telling each call made through {@link #cancelledOnItsLoop} which connection it is on. */
    public static HttpClient recorded(HttpClient client) {
        return client.doOnRequest((request, connection) -> request.currentContextView()
                .<Sent>getOrEmpty(SENT)
                .ifPresent(sent -> sent.call = connection.as(ChannelOperations.class)));
    }

    /**
     * {@code call}, a provider call through the filter chain, cancelled on the loop of the connection its
     * request went out on (at once while it has none: the pool then closes what it hands a cancelled call).
     */
    public static Mono<Void> cancelledOnItsLoop(Mono<Void> call) {
        return Mono.defer(() -> {
            Sent sent = new Sent();
            return Mono.from(guarded(call, () -> sent.call, false)).contextWrite(Context.of(SENT, sent));
        });
    }

    /** {@code source} with its cancel on the connection's loop ({@link CancelledOnLoop}). */
    private static <T> Publisher<T> guarded(
            Publisher<T> source, Supplier<Connection> connection, boolean drainWhenEnded) {
        Function<? super Publisher<T>, ? extends Publisher<T>> lift = Operators.lift(
                (scannable, downstream) -> new CancelledOnLoop<>(downstream, connection, drainWhenEnded));
        return lift.apply(source);
    }

    /** Runs {@code action} on {@code connection}'s event loop: now if this is it (or it has none left), else next. */
    static void onItsLoop(Connection connection, Runnable action) {
        EventLoop loop;
        try {
            loop = connection.channel().eventLoop();
        } catch (IllegalStateException deregistered) {
            loop = null; // closed and deregistered: nobody else can hold it, act here
        }
        if (loop == null || loop.inEventLoop()) {
            action.run();
            return;
        }
        try {
            loop.execute(action);
        } catch (RejectedExecutionException shuttingDown) {
            action.run(); // the loop is stopping, and every connection on it with it
        }
    }

    /** Whether {@code call} still holds its channel: it has not ended and given the connection back. */
    static boolean holds(Connection call) {
        return ChannelOperations.get(call.channel()) == call;
    }

    /**
     * Passes everything through; a cancel goes to the connection's loop and reaches upstream there. With
     * {@code drainWhenEnded}, a cancel that finds the call ended reads the rest instead and drops it (the
     * inbound frees each buffer once it has passed it on): cancelled, it would close the connection.
     */
    private static final class CancelledOnLoop<T> implements CoreSubscriber<T>, Subscription {
        private final CoreSubscriber<? super T> downstream;
        private final Supplier<Connection> connection;
        private final boolean drainWhenEnded;
        private Subscription upstream;
        private volatile boolean dropping;

        CancelledOnLoop(CoreSubscriber<? super T> downstream, Supplier<Connection> connection, boolean drainWhenEnded) {
            this.downstream = downstream;
            this.connection = connection;
            this.drainWhenEnded = drainWhenEnded;
        }

        @Override
        public Context currentContext() {
            return downstream.currentContext();
        }

        @Override
        public void onSubscribe(Subscription s) {
            upstream = s;
            downstream.onSubscribe(this);
        }

        @Override
        public void onNext(T t) {
            if (!dropping) downstream.onNext(t);
        }

        @Override
        public void onError(Throwable e) {
            if (!dropping) downstream.onError(e);
        }

        @Override
        public void onComplete() {
            if (!dropping) downstream.onComplete();
        }

        @Override
        public void request(long n) {
            upstream.request(n);
        }

        @Override
        public void cancel() {
            Connection c = connection.get();
            if (c == null) {
                upstream.cancel();
                return;
            }
            onItsLoop(c, () -> {
                if (!drainWhenEnded || holds(c)) {
                    upstream.cancel();
                } else {
                    dropping = true;
                    upstream.request(Long.MAX_VALUE);
                }
            });
        }
    }

    /**
     * Puts a {@link Held} in place of the call's connection as Spring Cloud Gateway keeps it for
     * writing the answer: its write filter and {@link ServerWebExchangeUtils#reset} dispose it when the
     * exchange is cancelled, fails or is sent again. Runs inside the write filter (-1), around the routing.
     */
    public static final class Filter implements GlobalFilter, Ordered {
        @Override
        public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
            return chain.filter(exchange).then(Mono.fromRunnable(() -> {
                Connection c = exchange.getAttribute(ServerWebExchangeUtils.CLIENT_RESPONSE_CONN_ATTR);
                if (c != null && !(c instanceof Held))
                    exchange.getAttributes().put(ServerWebExchangeUtils.CLIENT_RESPONSE_CONN_ATTR, new Held(c));
            }));
        }

        @Override
        public int getOrder() {
            return FilterOrder.PROVIDER_CONNECTION;
        }
    }

    /**
     * A call's connection as the answer is written from it: disposed, and its answer cancelled, on its
     * loop and only while the call holds it; once the call has ended, what is left of its answer is read
     * and dropped instead, and the connection stays with whoever took it from the pool.
     */
    record Held(Connection call) implements Connection {
        @Override
        public Channel channel() {
            return call.channel();
        }

        @Override
        public NettyInbound inbound() {
            NettyInbound in = call.inbound();
            return new NettyInbound() {
                @Override
                public ByteBufFlux receive() {
                    return ByteBufFlux.fromInbound(guarded(in.receive(), () -> call, true));
                }

                @Override
                public Flux<?> receiveObject() {
                    return in.receiveObject();
                }

                @Override
                public NettyInbound withConnection(Consumer<? super Connection> withConnection) {
                    return in.withConnection(withConnection);
                }
            };
        }

        @Override
        public void dispose() {
            onItsLoop(call, () -> {
                if (holds(call)) call.dispose();
                // Ended: the rest of its answer, if nobody read it, is read and dropped (a second reader is refused).
                else call.inbound().receive().subscribe(ignored -> {}, ignored -> {});
            });
        }

        @Override
        public boolean isDisposed() {
            return call.isDisposed();
        }
    }
}
