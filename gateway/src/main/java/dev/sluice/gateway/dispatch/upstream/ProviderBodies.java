package dev.sluice.gateway.dispatch.upstream;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What {@link UpstreamAnswer} reads of a provider's body without parsing it: whether its first
 * bytes look like JSON or an OpenAI error object, and the body drained, with its first bytes kept
 * for the operator's log (the connection goes back to the pool; the tenant never sees them).
 */
final class ProviderBodies {
    private static final int LOGGED_BODY_BYTES = 512;

    private ProviderBodies() {}

    private static final byte[] ERROR_KEY = "\"error\"".getBytes(StandardCharsets.US_ASCII);

    /**
     * Whether the body is an OpenAI error object, {@code {"error": ...}}: its first key is
     * {@code error}, which no answer of a counted endpoint starts with. Judged on the first
     * buffer, as the JSON check is; a body split before its first key passes.
     */
    static boolean isErrorObject(DataBuffer buffer) {
        int i = skipSpace(buffer, buffer.readPosition());
        if (i >= buffer.writePosition() || buffer.getByte(i) != '{') return false;
        i = skipSpace(buffer, i + 1);
        for (byte b : ERROR_KEY) {
            if (i >= buffer.writePosition() || buffer.getByte(i++) != b) return false;
        }
        i = skipSpace(buffer, i);
        return i < buffer.writePosition() && buffer.getByte(i) == ':';
    }

    private static int skipSpace(DataBuffer buffer, int i) {
        while (i < buffer.writePosition()) {
            byte b = buffer.getByte(i);
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') break;
            i++;
        }
        return i;
    }

    static boolean startsLikeJson(DataBuffer buffer) {
        for (int i = buffer.readPosition(); i < buffer.writePosition(); i++) {
            byte b = buffer.getByte(i);
            if (b == ' ' || b == '\t' || b == '\r' || b == '\n') continue;
            return b == '{' || b == '[';
        }
        return false;
    }

    /** Consumed, so the connection goes back to the pool; the first bytes are kept for the operator's log. */
    static Mono<String> drain(Flux<DataBuffer> body) {
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        return body.doOnNext(b -> {
                    int n = Math.min(b.readableByteCount(), LOGGED_BODY_BYTES - kept.size());
                    for (int i = 0; i < n; i++) kept.write(b.getByte(b.readPosition() + i));
                    DataBufferUtils.release(b);
                })
                .then(Mono.fromSupplier(() -> kept.toString(StandardCharsets.UTF_8)));
    }
}
