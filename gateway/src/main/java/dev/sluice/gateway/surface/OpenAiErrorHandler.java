package dev.sluice.gateway.surface;

import dev.sluice.gateway.api.OpenAiErrors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.webflux.error.ErrorWebExceptionHandler;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * What escapes every handler, answered in OpenAI's error shape rather than Spring's: a path no
 * route serves (404), a method or media type a handler refused, and, for a fault of the
 * gateway's own, a 500 that says the request was not charged (the quota refunds it). The
 * admin and actuator surfaces keep Spring's own answers; a response already started is left
 * to end as it can.
 */
public final class OpenAiErrorHandler implements ErrorWebExceptionHandler, Ordered {
    private static final Logger log = LoggerFactory.getLogger(OpenAiErrorHandler.class);

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        String path = exchange.getRequest().getPath().value();
        if (exchange.getResponse().isCommitted() || path.startsWith("/admin") || path.startsWith("/actuator")) {
            return Mono.error(ex);
        }
        String target = exchange.getRequest().getMethod().name() + " "
                + exchange.getRequest().getURI().getRawPath();
        if (ex instanceof ResponseStatusException rse && rse.getStatusCode().is4xxClientError()) {
            HttpStatus status = HttpStatus.resolve(rse.getStatusCode().value());
            if (status == null) status = HttpStatus.BAD_REQUEST;
            String allow = rse.getHeaders().getFirst(HttpHeaders.ALLOW);
            if (allow != null) exchange.getResponse().getHeaders().set(HttpHeaders.ALLOW, allow);
            String code = switch (status) {
                case NOT_FOUND -> "unknown_url";
                case METHOD_NOT_ALLOWED -> "method_not_allowed";
                case UNSUPPORTED_MEDIA_TYPE -> "unsupported_media_type";
                case CONTENT_TOO_LARGE -> "request_too_large";
                default -> "invalid_request";
            };
            String message = status == HttpStatus.NOT_FOUND
                    ? "Invalid URL (" + target + ")"
                    : status.getReasonPhrase() + " (" + target + ")";
            return OpenAiErrors.write(exchange, status, "invalid_request_error", code, message);
        }
        log.error("Unhandled failure on {}", target, ex);
        return OpenAiErrors.write(
                exchange,
                HttpStatus.INTERNAL_SERVER_ERROR,
                "server_error",
                "internal_error",
                "The gateway failed to handle this request; it was not charged. Retry, and report it if it persists.");
    }

    /** Before Boot's default handler (-1). */
    @Override
    public int getOrder() {
        return -2;
    }
}
