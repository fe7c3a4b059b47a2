package dev.sluice.gateway.support;

import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import reactor.core.publisher.Mono;

/** A body read whole into one array, its buffers released: for the stages that must read a body before it goes on. */
public final class Bodies {
    private Bodies() {}

    /**
     * The body's bytes (empty for no body), failing with Spring's {@code DataBufferLimitException}
     * past {@code limit} bytes ({@code -1}: no limit).
     */
    public static Mono<byte[]> read(Publisher<? extends DataBuffer> body, int limit) {
        return DataBufferUtils.join(body, limit)
                .map(buffer -> {
                    byte[] bytes = new byte[buffer.readableByteCount()];
                    buffer.read(bytes);
                    DataBufferUtils.release(buffer);
                    return bytes;
                })
                .defaultIfEmpty(new byte[0]);
    }
}
