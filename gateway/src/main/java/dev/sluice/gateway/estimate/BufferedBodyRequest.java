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
final class BufferedBodyRequest extends ServerHttpRequestDecorator {
    private final ServerWebExchange exchange;
    private final DataBufferFactory buffers;

    BufferedBodyRequest(ServerHttpRequest delegate, ServerWebExchange exchange, DataBufferFactory buffers) {
        super(delegate);
        this.exchange = exchange;
        this.buffers = buffers;
    }

    private byte[] body() {
        byte[] body = exchange.getAttribute(SluiceAttributes.REQUEST_BODY);
        return body == null ? new byte[0] : body;
    }

    @Override
    public HttpHeaders getHeaders() {
        HttpHeaders headers = new HttpHeaders();
        headers.putAll(super.getHeaders());
        headers.remove(HttpHeaders.TRANSFER_ENCODING);
        headers.setContentLength(body().length);
        return headers;
    }

    @Override
    public Flux<DataBuffer> getBody() {
        return Flux.defer(() -> Flux.just(buffers.wrap(body())));
    }
}
