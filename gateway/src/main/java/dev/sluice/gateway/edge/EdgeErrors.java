package dev.sluice.gateway.edge;

import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.support.Causes;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.timeout.ReadTimeoutException;
import java.nio.channels.ClosedChannelException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import org.springframework.web.util.DisconnectedClientHelper;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/**
 * Errors that are the client's doing, caught before Boot's error handler (which would answer
 * 500 and log each at ERROR with its stack trace): a client that hung up is one DEBUG line and
 * no answer (there is nobody to answer); a body Netty could not decode (a malformed chunk) is a
 * 400 in OpenAI's shape and one DEBUG line. Everything else goes on to the next handler.
 */
@Component
@Order(-2) // before Boot's DefaultErrorWebExceptionHandler (-1)
public class EdgeErrors implements WebExceptionHandler {
    private static final Logger log = LoggerFactory.getLogger(EdgeErrors.class);

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        if (clientHungUp(ex)) {
            debug("Client hung up", exchange, ex);
            return Mono.empty();
        }
        if (timedOut(ex)) {
            debug("Request body too slow", exchange, ex);
            return refuseAndClose(
                    exchange,
                    HttpStatus.REQUEST_TIMEOUT,
                    "request_timeout",
                    "The request body did not arrive in time (sluice.edge.read-timeout / request-timeout).");
        }
        if (ex instanceof IllegalStateException && alreadyAnswered(exchange)) {
            // Netty answered this request itself (a body it could not decode) and the handlers went on.
            debug("Answered by the listener already", exchange, null);
            return Mono.empty();
        }
        Throwable decoding = decoding(ex);
        if (decoding != null) {
            debug("Undecodable request body", exchange, decoding);
            return refuseAndClose(
                    exchange,
                    HttpStatus.BAD_REQUEST,
                    "malformed_body",
                    "The request body could not be decoded ("
                            + decoding.getClass().getSimpleName() + "): check its chunked encoding.");
        }
        return Mono.error(ex);
    }

    /** One DEBUG line: what happened, to which request from where, and the failure when there is one. */
    private static void debug(String what, ServerWebExchange exchange, Throwable failure) {
        if (!log.isDebugEnabled()) return;
        var request = exchange.getRequest();
        log.debug(
                "{}: {} {} from {}{}",
                what,
                request.getMethod(),
                request.getPath(),
                request.getRemoteAddress(),
                failure == null ? "" : " (" + failure + ")");
    }

    /** A 400-class answer about the request, and the connection closed after it: what follows cannot be trusted. */
    private static Mono<Void> refuseAndClose(
            ServerWebExchange exchange, HttpStatus status, String code, String message) {
        exchange.getResponse().getHeaders().set("Connection", "close");
        return OpenAiErrors.invalidRequest(exchange, status, code, message, null);
    }

    /** A failure that is the client's doing: it hung up, was too slow, or sent a body Netty could not decode. */
    static boolean clientSide(Throwable ex) {
        return clientHungUp(ex) || timedOut(ex) || decoding(ex) != null;
    }

    static boolean timedOut(Throwable ex) {
        return Causes.any(
                ex,
                t -> t instanceof ReadTimeoutException
                        || t.getClass().getName().equals("reactor.netty.http.server.RequestTimeoutException"));
    }

    private static boolean alreadyAnswered(ServerWebExchange exchange) {
        Object nativeResponse = ServerHttpResponseDecorator.getNativeResponse(exchange.getResponse());
        return nativeResponse instanceof HttpServerResponse r && r.hasSentHeaders();
    }

    static boolean clientHungUp(Throwable ex) {
        return Causes.any(
                ex,
                t -> DisconnectedClientHelper.isClientDisconnectedException(t)
                        || t instanceof PrematureChannelClosureException
                        || t instanceof ClosedChannelException
                        || t.getClass().getName().equals("reactor.netty.channel.AbortedException"));
    }

    static Throwable decoding(Throwable ex) {
        return Causes.find(ex, t -> t instanceof DecoderException);
    }
}
