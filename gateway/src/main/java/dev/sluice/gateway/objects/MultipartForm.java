package dev.sluice.gateway.objects;

import dev.sluice.gateway.support.Bodies;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A multipart/form-data body already read whole (bounded), parsed with Spring's reader, kept in
 * memory (never spilled to disk: it is no larger than the bound) and written back with one part
 * replaced, under the same boundary, so the request's Content-Type still holds.
 */
public final class MultipartForm {
    /** One part: its headers as sent and its content. */
    public record Field(String name, HttpHeaders headers, byte[] content) {
        public String text() {
            return new String(content, StandardCharsets.UTF_8);
        }
    }

    private final String boundary;
    private final List<Field> fields;

    private MultipartForm(String boundary, List<Field> fields) {
        this.boundary = boundary;
        this.fields = fields;
    }

    /** The parts of {@code body}; an error when the type is not multipart/form-data with a boundary. */
    public static Mono<MultipartForm> parse(MediaType type, byte[] body) {
        String boundary = type == null ? null : type.getParameter("boundary");
        if (type == null || !MediaType.MULTIPART_FORM_DATA.includes(type) || boundary == null || boundary.isEmpty()) {
            return Mono.error(new IllegalArgumentException("not multipart/form-data with a boundary"));
        }
        String unquoted = boundary.length() > 1 && boundary.startsWith("\"") && boundary.endsWith("\"")
                ? boundary.substring(1, boundary.length() - 1)
                : boundary;
        DefaultPartHttpMessageReader reader = new DefaultPartHttpMessageReader();
        reader.setMaxInMemorySize(Math.max(body.length, 1));
        reader.setMaxParts(64);
        HttpHeaders headers = new HttpHeaders();
        headers.setContentType(type);
        ReactiveHttpInputMessage message = new ReactiveHttpInputMessage() {
            @Override
            public HttpHeaders getHeaders() {
                return headers;
            }

            @Override
            public Flux<DataBuffer> getBody() {
                return Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body));
            }
        };
        return reader.read(ResolvableType.forClass(Part.class), message, Map.of())
                .concatMap(part ->
                        Bodies.read(part.content(), -1).map(bytes -> new Field(part.name(), part.headers(), bytes)))
                .collectList()
                .map(list -> new MultipartForm(unquoted, List.copyOf(list)));
    }

    /** The first part of that name, or null. */
    public Field field(String name) {
        return fields.stream().filter(f -> f.name().equals(name)).findFirst().orElse(null);
    }

    /** The body with {@code name}'s content replaced, every other byte of meaning kept. */
    public byte[] with(String name, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 1024);
        for (Field f : fields) {
            out.writeBytes(ascii("--" + boundary + "\r\n"));
            f.headers()
                    .forEach((header, values) -> values.forEach(
                            v -> out.writeBytes((header + ": " + v + "\r\n").getBytes(StandardCharsets.UTF_8))));
            out.writeBytes(ascii("\r\n"));
            out.writeBytes(f.name().equals(name) ? content : f.content());
            out.writeBytes(ascii("\r\n"));
        }
        out.writeBytes(ascii("--" + boundary + "--\r\n"));
        return out.toByteArray();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
