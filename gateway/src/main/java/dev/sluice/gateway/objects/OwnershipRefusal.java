package dev.sluice.gateway.objects;

import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.estimate.InvalidRequestException;
import java.util.Map;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Why the ownership stage answers itself, in OpenAI's error shape. Anything it did not expect
 * (the store failing, a bug) refuses the request: an owner that cannot be read is nobody.
 */
final class OwnershipRefusal extends RuntimeException {
    final HttpStatus status;
    final String type;
    final String code;
    final String param;

    OwnershipRefusal(HttpStatus status, String type, String code, String message, String param) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.code = code;
        this.param = param;
    }

    /** 404 as OpenAI answers an id it does not know: another tenant's object is one this tenant cannot see. */
    static OwnershipRefusal noSuch(String objectName, String id, String param) {
        return new OwnershipRefusal(
                HttpStatus.NOT_FOUND, "invalid_request_error", null, "No such " + objectName + " object: " + id, param);
    }

    static OwnershipRefusal of(Throwable e) {
        if (e instanceof OwnershipRefusal r) return r;
        if (e instanceof InvalidRequestException i) {
            return new OwnershipRefusal(
                    HttpStatus.BAD_REQUEST, "invalid_request_error", null, i.getMessage(), i.param());
        }
        if (e instanceof DataBufferLimitException) {
            return new OwnershipRefusal(
                    HttpStatus.CONTENT_TOO_LARGE,
                    "invalid_request_error",
                    "request_too_large",
                    "The request body is larger than this gateway reads for this operation.",
                    null);
        }
        return unavailable();
    }

    static OwnershipRefusal unavailable() {
        return new OwnershipRefusal(
                HttpStatus.SERVICE_UNAVAILABLE,
                "server_error",
                "store_unavailable",
                "The gateway cannot read who owns the objects this request names; it was not sent or charged. Retry shortly.",
                null);
    }

    Mono<Void> write(ServerWebExchange exchange) {
        if (type.equals("invalid_request_error"))
            return OpenAiErrors.invalidRequest(exchange, status, code, getMessage(), param);
        return OpenAiErrors.write(exchange, status, type, code, getMessage(), Map.of());
    }
}
