package dev.sluice.gateway.surface;

import dev.sluice.gateway.api.Json;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
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
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;

/**
 * Sits right after Netty's HTTP decoder and answers, in OpenAI's error shape, the requests no
 * handler can even see: a request target that is not a URI (a backslash, a space, a raw control
 * character: Spring cannot build the request and would answer an empty 400) and a request line
 * or headers Netty could not decode. The connection is closed after the answer, since the rest
 * of what the client sends can no longer be framed with confidence.
 */
final class RequestLineGuard extends ChannelInboundHandlerAdapter {
    static final String NAME = "sluice.requestLineGuard";

    /** After a refusal the connection closes: what the client still sends is dropped, not passed on. */
    private boolean discarding;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (discarding) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request) {
            FullHttpResponse refusal = refusal(request);
            if (refusal != null) {
                discarding = true;
                ReferenceCountUtil.release(msg);
                ctx.writeAndFlush(refusal).addListener(ChannelFutureListener.CLOSE);
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    private static FullHttpResponse refusal(HttpRequest request) {
        if (request.decoderResult().isFailure()) {
            Throwable cause = request.decoderResult().cause();
            if (cause instanceof TooLongHttpLineException) {
                return response(HttpResponseStatus.REQUEST_URI_TOO_LONG, "request_too_large",
                        "The request line is longer than this gateway accepts.");
            }
            if (cause instanceof TooLongHttpHeaderException) {
                return response(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request_too_large",
                        "The request headers are larger than this gateway accepts.");
            }
            return response(HttpResponseStatus.BAD_REQUEST, "invalid_request", "The request could not be read as HTTP/1.1.");
        }
        try {
            new URI(request.uri());
            return null;
        } catch (URISyntaxException e) {
            return response(HttpResponseStatus.BAD_REQUEST, "invalid_path",
                    "Invalid URL: the request target is not a valid URI (" + e.getReason() + ").");
        }
    }

    private static FullHttpResponse response(HttpResponseStatus status, String code, String message) {
        byte[] body = ("{\"error\":{\"message\":" + Json.quote(message) + ",\"type\":\"invalid_request_error\",\"code\":"
                + Json.quote(code) + ",\"param\":null}}").getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }
}
