package dev.sluice.gateway.api;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Writes errors in OpenAI's shape, {@code {"error":{"message","type","code","param"}}}, so
 * existing SDKs parse and classify them (401 → AuthenticationError, 429 → RateLimitError…).
 */
public final class OpenAiErrors {
    private OpenAiErrors() {}

    public static Mono<Void> write(
            ServerWebExchange exchange, HttpStatus status, String type, String code, String message) {
        return write(exchange, status, type, code, message, Map.of());
    }

    /** {@code extra} adds fields beside the standard four (e.g. a queue position on 503 gateway_busy). */
    public static Mono<Void> write(
            ServerWebExchange exchange,
            HttpStatus status,
            String type,
            String code,
            String message,
            Map<String, Object> extra) {
        return write(exchange.getResponse(), status, type, code, message, null, extra);
    }

    /**
     * 400 request_too_large: more tokens than a limit admits in a whole window, so no wait would
     * help; {@code extra} names the limit and what the request needs.
     */
    public static Mono<Void> tooManyTokens(ServerWebExchange exchange, String message, Map<String, Object> extra) {
        return write(exchange, HttpStatus.BAD_REQUEST, "invalid_request_error", "request_too_large", message, extra);
    }

    /** 404 model_not_found, as OpenAI words it: the model is unknown here (listing, or no provider serves it). */
    public static Mono<Void> modelNotFound(ServerWebExchange exchange, String model) {
        return invalidRequest(
                exchange,
                HttpStatus.NOT_FOUND,
                "model_not_found",
                "The model '" + model + "' does not exist or you do not have access to it.",
                "model");
    }

    /** A 4xx about the request itself, naming the offending field when known. */
    public static Mono<Void> invalidRequest(
            ServerWebExchange exchange, HttpStatus status, String code, String message, String param) {
        return write(exchange.getResponse(), status, "invalid_request_error", code, message, param, Map.of());
    }

    /**
     * 503 server_error with {@code Retry-After: 1}: a store the answer needs did not answer in time; the
     * next second may find it back.
     */
    public static Mono<Void> unavailable(ServerWebExchange exchange, String code, String message) {
        exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, "1");
        return write(exchange, HttpStatus.SERVICE_UNAVAILABLE, "server_error", code, message);
    }

    /** For a response decorator that replaces what it was given (an upstream answer the tenant must not see). */
    public static Mono<Void> write(
            ServerHttpResponse response, HttpStatus status, String type, String code, String message) {
        return write(response, status, type, code, message, null, Map.of());
    }

    private static Mono<Void> write(
            ServerHttpResponse response,
            HttpStatus status,
            String type,
            String code,
            String message,
            String param,
            Map<String, Object> extra) {
        if (response.isCommitted()) return Mono.empty();
        response.setStatusCode(status);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        DataBuffer buffer = response.bufferFactory()
                .wrap(body(type, code, message, param, extra).getBytes(StandardCharsets.UTF_8));
        return response.writeWith(Mono.just(buffer));
    }

    /** The error body itself, for the places that write it below Spring (Netty handlers, an SSE error event). */
    public static String body(String type, String code, String message) {
        return body(type, code, message, null, Map.of());
    }

    private static String body(String type, String code, String message, String param, Map<String, Object> extra) {
        return Json.write(new Body(new Detail(message, type, code, param, extra)));
    }

    record Body(Detail error) {}

    /** {@code code} and {@code param} are written as null when there is none, as OpenAI does; {@code extra} follows them. */
    record Detail(
            String message,
            String type,
            String code,
            String param,
            @JsonAnyGetter Map<String, Object> extra) {}

    public static Mono<Void> invalidApiKey(ServerWebExchange exchange, String message) {
        exchange.getResponse().getHeaders().set("WWW-Authenticate", "Bearer");
        return write(exchange, HttpStatus.UNAUTHORIZED, "invalid_request_error", "invalid_api_key", message);
    }
}
