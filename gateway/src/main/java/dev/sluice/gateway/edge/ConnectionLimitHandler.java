package dev.sluice.gateway.edge;

import dev.sluice.gateway.api.OpenAiErrors;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.charset.StandardCharsets;

/**
 * First in each connection's pipeline: counts the connection against its client address, or
 * refuses it with a 429 written straight to the socket (no HTTP handler runs for it) and
 * closes it. The count is released when the connection closes, however it closes.
 */
final class ConnectionLimitHandler extends ChannelInboundHandlerAdapter {
    static final String NAME = "sluice.connectionLimit";
    private static final byte[] REFUSAL = refusal();

    private final ConnectionCounter counter;
    private boolean admitted;
    private boolean refused;

    ConnectionLimitHandler(ConnectionCounter counter) {
        this.counter = counter;
    }

    /** The connection may already be active when this handler joins its pipeline; then it is counted at once. */
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) admit(ctx, false);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        admit(ctx, true);
    }

    private void admit(ChannelHandlerContext ctx, boolean fireActive) {
        if (refused) return;
        if (admitted) {
            if (fireActive) ctx.fireChannelActive();
            return;
        }
        String address = EdgeConfiguration.address(ctx.channel().remoteAddress());
        if (!counter.tryOpen(address)) {
            // Not passed on: the HTTP handlers never learn of this connection.
            refused = true;
            ctx.writeAndFlush(Unpooled.wrappedBuffer(REFUSAL)).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        admitted = true;
        ctx.channel().closeFuture().addListener(f -> counter.close(address));
        if (fireActive) ctx.fireChannelActive();
    }

    private static byte[] refusal() {
        String body = OpenAiErrors.body(
                "rate_limit_error",
                "too_many_connections",
                "Too many open connections from this address; reuse a connection or close some.");
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        String head =
                "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\n"
                        + "content-length: " + b.length + "\r\n\r\n";
        return (head + body).getBytes(StandardCharsets.UTF_8);
    }
}
