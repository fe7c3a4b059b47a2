package dev.sluice.gateway.admin;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/** The admin API's error bodies, for handlers (a {@link ServerResponse}) and for security (a raw response). */
final class AdminResponses {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private AdminResponses() {
    }

    static Map<String, Object> body(HttpStatus status, String code, String message, List<AdminError.FieldProblem> fields) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("message", message);
        error.put("code", code);
        error.put("status", status.value());
        List<Map<String, Object>> fs = new ArrayList<>();
        for (AdminError.FieldProblem f : fields) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("field", f.field());
            if (f.line() > 0) m.put("line", f.line());
            m.put("message", f.message());
            fs.add(m);
        }
        error.put("fields", fs);
        return Map.of("error", error);
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
        byte[] bytes = JSON.writeValueAsString(body(status, code, message, List.of())).getBytes(StandardCharsets.UTF_8);
        DataBuffer buffer = response.bufferFactory().wrap(bytes);
        return response.writeWith(Mono.just(buffer));
    }
}
