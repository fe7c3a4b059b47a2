package dev.sluice.gateway.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/** The admin API's answers: JSON, and its error bodies for handlers (a {@link ServerResponse}) and for security (a raw response). */
final class AdminResponses {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private AdminResponses() {}

    record Body(Error error) {}

    record Error(String message, String code, int status, List<Field> fields) {}

    /** {@code line} only for a problem found in a YAML document. */
    record Field(
            String field,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer line,
            String message) {}

    static Body body(HttpStatus status, String code, String message, List<AdminError.FieldProblem> fields) {
        List<Field> fs = fields.stream()
                .map(f -> new Field(f.field(), f.line() > 0 ? f.line() : null, f.message()))
                .toList();
        return new Body(new Error(message, code, status.value(), fs));
    }

    static Mono<ServerResponse> ok(Object body) {
        return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(body);
    }

    static Mono<ServerResponse> error(AdminError e) {
        ServerResponse.BodyBuilder b = ServerResponse.status(e.status()).contentType(MediaType.APPLICATION_JSON);
        e.headers().forEach(b::header);
        return b.bodyValue(body(e.status(), e.code(), e.getMessage(), e.fields()));
    }

    /** For the security layer, which writes before any handler runs. */
    static Mono<Void> write(ServerHttpResponse response, HttpStatus status, String code, String message) {
        response.setStatusCode(status);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        response.getHeaders().set(HttpHeaders.CACHE_CONTROL, "no-store");
        byte[] bytes =
                JSON.writeValueAsString(body(status, code, message, List.of())).getBytes(StandardCharsets.UTF_8);
        DataBuffer buffer = response.bufferFactory().wrap(bytes);
        return response.writeWith(Mono.just(buffer));
    }
}
