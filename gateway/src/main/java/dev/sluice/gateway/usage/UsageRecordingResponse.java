package dev.sluice.gateway.usage;

import com.knuddels.jtokkit.api.Encoding;
import dev.sluice.gateway.api.RequestAttribute;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Watches the upstream's answer on its way to the client and records the usage it reports.
 * Streams go through {@link SseUsageTap} event by event (never buffered whole, the extra
 * usage chunk removed when the client did not ask for it); JSON answers are passed on as they
 * come while a bounded copy is kept to read {@code usage} from at the end.
 */
public final class UsageRecordingResponse extends ServerHttpResponseDecorator {
    /** Where the settle stage leaves it: dispatch reads the usage of the answer it passed on. */
    public static final RequestAttribute<UsageRecordingResponse> ATTRIBUTE = new RequestAttribute<>("sluice.usage");

    /** JSON answers larger than this are not inspected (embeddings of huge batches): the reservation stands. */
    static final int MAX_JSON_COPY = 2 * 1024 * 1024;

    private final boolean stripUsageChunk;
    private final Encoding encoding;
    private volatile SseUsageTap tap;
    private volatile JsonCopy json;

    public UsageRecordingResponse(ServerHttpResponse delegate, boolean stripUsageChunk, Encoding encoding) {
        super(delegate);
        this.stripUsageChunk = stripUsageChunk;
        this.encoding = encoding;
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
        return super.writeWith(watch(Flux.from(body)));
    }

    /** Streams arrive here (Spring Cloud Gateway flushes each chunk of an event stream). */
    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
        return super.writeAndFlushWith(
                watch(Flux.from(body).concatMap(Flux::from)).map(Flux::just));
    }

    private Flux<DataBuffer> watch(Flux<? extends DataBuffer> body) {
        MediaType type = getHeaders().getContentType();
        if (type != null && MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
            SseUsageTap sse = new SseUsageTap(stripUsageChunk, encoding);
            tap = sse;
            // The usage chunk the gateway asked for is taken out: a length the provider sent would promise
            // bytes that never come, and the client would wait for them.
            if (stripUsageChunk) getHeaders().remove(HttpHeaders.CONTENT_LENGTH);
            return body.map(buffer -> {
                        byte[] in = new byte[buffer.readableByteCount()];
                        buffer.read(in);
                        DataBufferUtils.release(buffer);
                        return bufferFactory().wrap(sse.feed(in));
                    })
                    .concatWith(Mono.fromSupplier(() -> bufferFactory().wrap(sse.finish())));
        }
        if (type != null
                && !MediaType.APPLICATION_JSON.isCompatibleWith(type)
                && !type.getSubtype().endsWith("+json")) {
            // Audio, images as bytes: nothing to read a usage or a text from.
            return body.map(buffer -> (DataBuffer) buffer);
        }
        JsonCopy copy = new JsonCopy();
        json = copy;
        return body.map(buffer -> {
            DataBuffer b = (DataBuffer) buffer;
            copy.add(b);
            return b;
        });
    }

    /**
     * The answer's bytes, copied once from each buffer straight into one array sized for them
     * (a JSON answer is usually one buffer): no per-buffer array, no final copy to read it.
     */
    private static final class JsonCopy {
        byte[] bytes = new byte[0];
        int size;
        boolean overflowed;
        private Optional<Usage> usage;
        private long outputTokens = -1;

        synchronized void add(DataBuffer b) {
            int n = b.readableByteCount();
            if (size + n > MAX_JSON_COPY) {
                overflowed = true;
                return;
            }
            if (size + n > bytes.length)
                bytes = Arrays.copyOf(bytes, Math.min(MAX_JSON_COPY, Math.max(size + n, 2 * bytes.length)));
            b.toByteBuffer(b.readPosition(), ByteBuffer.wrap(bytes), size, n);
            size += n;
        }

        /**
         * Read from what has passed when first asked, at settlement, not when the body completes:
         * a client that hangs up as the last bytes go out cancels the answer before its completion
         * is signalled, and its usage had reached it all the same.
         */
        synchronized Optional<Usage> usage() {
            if (usage == null && !overflowed) usage = UsageExtractor.fromJson(bytes, size);
            return usage == null ? Optional.empty() : usage;
        }

        synchronized long outputTokens(Encoding encoding) {
            if (outputTokens < 0) {
                String text = overflowed ? "" : UsageExtractor.outputText(bytes, size);
                outputTokens = text.isEmpty() ? 0 : encoding.countTokensOrdinary(text);
            }
            return outputTokens;
        }
    }

    /** The usage the upstream reported, once the answer has passed. */
    public Optional<Usage> usage() {
        SseUsageTap t = tap;
        if (t != null) return t.usage();
        JsonCopy j = json;
        return j == null ? Optional.empty() : j.usage();
    }

    /**
     * Output tokens in what passed to the client: the text streamed so far, or the generated
     * text of a JSON answer (counted only when asked: when the answer reported no usage).
     */
    public long observedOutputTokens() {
        SseUsageTap t = tap;
        if (t != null) return t.observedOutputTokens();
        JsonCopy j = json;
        return j == null ? 0 : j.outputTokens(encoding);
    }

    /** Output streamed after the provider's last usage report (0 for JSON answers, whose usage is their last word). */
    public long outputTokensAfterUsage() {
        SseUsageTap t = tap;
        return t == null ? 0 : t.outputTokensAfterUsage();
    }
}
