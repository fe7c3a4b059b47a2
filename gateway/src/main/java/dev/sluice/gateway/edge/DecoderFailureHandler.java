package dev.sluice.gateway.edge;

import dev.sluice.gateway.api.Json;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Right after the HTTP codec. Inbound: a request line or headers it could not decode get a 4xx
 * with an OpenAI-shaped body (Reactor Netty's own answer is an empty 400), one DEBUG line, and
 * the connection closed, since nothing after a broken head can be trusted to start a request.
 * Outbound: the empty 4xx Reactor Netty writes itself when a body cannot be decoded (a
 * malformed chunk) and it closes the connection gets the same kind of body.
 */
final class DecoderFailureHandler extends ChannelDuplexHandler {
    static final String NAME = "sluice.decoderFailures";
    private static final Logger log = LoggerFactory.getLogger(DecoderFailureHandler.class);

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request && request.decoderResult().isFailure()) {
            DecoderResult result = request.decoderResult();
            ReferenceCountUtil.release(msg);
            answer(ctx, result.cause());
            return;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof FullHttpResponse r && r.status().codeClass() == io.netty.handler.codec.http.HttpStatusClass.CLIENT_ERROR
                && !r.content().isReadable() && r.headers().contains(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true)
                && !r.headers().contains(HttpHeaderNames.CONTENT_TYPE)) {
            log.debug("Refused an undecodable request from {}: {}", ctx.channel().remoteAddress(), r.status().code());
            byte[] body = body(r.status(), "malformed request").getBytes(StandardCharsets.UTF_8);
            FullHttpResponse filled = r.replace(Unpooled.wrappedBuffer(body));
            r.release();
            filled.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
            msg = filled;
        }
        super.write(ctx, msg, promise);
    }

    static HttpResponseStatus statusFor(Throwable cause) {
        if (cause instanceof TooLongHttpLineException) return HttpResponseStatus.REQUEST_URI_TOO_LONG;
        if (cause instanceof TooLongHttpHeaderException) return HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
        return HttpResponseStatus.BAD_REQUEST;
    }

    private static void answer(ChannelHandlerContext ctx, Throwable cause) {
        HttpResponseStatus status = statusFor(cause);
        String reason = cause == null || cause.getMessage() == null ? "malformed request" : cause.getMessage();
        if (reason.length() > 200) reason = reason.substring(0, 200) + "…";
        log.debug("Refused an undecodable request from {}: {} ({})", ctx.channel().remoteAddress(), status.code(), reason);
        String body = body(status, reason);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(body.getBytes(StandardCharsets.UTF_8)));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    private static String body(HttpResponseStatus status, String reason) {
        String what = switch (status.code()) {
            case 408 -> "The request took too long to arrive.";
            case 413 -> "The request is larger than this gateway accepts.";
            case 414 -> "The request line is longer than this gateway accepts: " + reason;
            case 431 -> "The request's headers are larger than this gateway accepts: " + reason;
            default -> "The request could not be parsed as HTTP/1.1: " + reason;
        };
        return "{\"error\":{\"message\":" + Json.quote(what)
                + ",\"type\":\"invalid_request_error\",\"code\":\"malformed_http\",\"param\":null}}";
    }
}
