package dev.sluice.gateway.estimate;

import dev.sluice.gateway.api.SluiceAttributes;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;

/**
 * The request as the upstream sees it: its body is whatever {@link SluiceAttributes#REQUEST_BODY}
 * holds when the upstream call subscribes, so a later stage (the model downgrade) rewrites the
 * body by replacing that attribute, and the length header always matches.
 */
public final class BufferedBodyRequest extends ServerHttpRequestDecorator {
    private final ServerWebExchange exchange;
    private final DataBufferFactory buffers;
    /** The request moves from thread to thread but is only ever on one at a time. */
    private HttpHeaders headers;

    private byte[] headersFor;

    public BufferedBodyRequest(ServerHttpRequest delegate, ServerWebExchange exchange, DataBufferFactory buffers) {
        super(delegate);
        this.exchange = exchange;
        this.buffers = buffers;
    }

    private byte[] body() {
        byte[] body = SluiceAttributes.REQUEST_BODY.get(exchange);
        return body == null ? new byte[0] : body;
    }

    /**
     * The headers with the length of the body they were made for: Spring Cloud Gateway's header
     * filters ask several times per request, and copying them each time was measurable. Read
     * only, like any request's headers.
     */
    @Override
    public HttpHeaders getHeaders() {
        byte[] body = body();
        if (headers == null || headersFor != body) {
            HttpHeaders h = new HttpHeaders();
            h.putAll(super.getHeaders());
            h.remove(HttpHeaders.TRANSFER_ENCODING);
            h.setContentLength(body.length);
            headers = HttpHeaders.readOnlyHttpHeaders(h);
            headersFor = body;
        }
        return headers;
    }

    @Override
    public Flux<DataBuffer> getBody() {
        return Flux.defer(() -> Flux.just(buffers.wrap(body())));
    }
}
