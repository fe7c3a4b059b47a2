package dev.sluice.gateway.edge;

import dev.sluice.gateway.api.OpenAiErrors;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Right after the HTTP codec, it answers the requests no handler can even see. Inbound: a
 * request line or headers the codec could not decode (400 {@code malformed_http}, 414 or 431
 * {@code request_too_large}), and a request target that is not a URI (a backslash, a space, a
 * raw control character: Spring cannot build the request and would answer an empty 400; 400
 * {@code invalid_path}). Each gets an OpenAI-shaped body, one DEBUG line, and the connection
 * closed, since nothing after a broken head can be trusted to start a request; what the client
 * still sends is dropped. Outbound: the empty 4xx Reactor Netty writes itself when a body cannot
 * be decoded (a malformed chunk) and it closes the connection gets the same kind of body.
 */
final class DecoderFailureHandler extends ChannelDuplexHandler {
    static final String NAME = "sluice.decoderFailures";
    private static final Logger log = LoggerFactory.getLogger(DecoderFailureHandler.class);

    /** After a refusal the connection closes: what the client still sends is dropped, not passed on. */
    private boolean discarding;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (discarding) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request) {
            DecoderResult result = request.decoderResult();
            String badTarget = result.isFailure() ? null : invalidTarget(request.uri());
            if (result.isFailure() || badTarget != null) {
                discarding = true;
                ReferenceCountUtil.release(msg);
                if (result.isFailure()) answer(ctx, result.cause());
                else
                    answer(
                            ctx,
                            HttpResponseStatus.BAD_REQUEST,
                            "invalid_path",
                            "Invalid URL: the request target is not a valid URI (" + badTarget + ").");
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** Why {@code uri} is no URI, or null when it is one. */
    static String invalidTarget(String uri) {
        if (isPlainTarget(uri)) return null;
        try {
            new URI(uri);
            return null;
        } catch (URISyntaxException e) {
            return e.getReason();
        }
    }

    /**
     * A path and query of characters that are valid anywhere after a leading slash: a URI with no
     * need to parse it, which would otherwise cost a {@code java.net.URI} on every request.
     * Anything else (percent escapes, brackets, a fragment, {@code //}) is left to the parser.
     */
    static boolean isPlainTarget(String uri) {
        int n = uri.length();
        if (n == 0 || uri.charAt(0) != '/' || (n > 1 && uri.charAt(1) == '/')) return false;
        for (int i = 1; i < n; i++) {
            char c = uri.charAt(i);
            boolean plain = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || "-._~/?=&+,;:@!$'()*".indexOf(c) >= 0;
            if (!plain) return false;
        }
        return true;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof FullHttpResponse r
                && r.status().codeClass() == HttpStatusClass.CLIENT_ERROR
                && !r.content().isReadable()
                && r.headers().contains(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true)
                && !r.headers().contains(HttpHeaderNames.CONTENT_TYPE)) {
            log.debug(
                    "Refused an undecodable request from {}: {}",
                    ctx.channel().remoteAddress(),
                    r.status().code());
            byte[] body = body(codeFor(r.status()), message(r.status(), "malformed request"))
                    .getBytes(StandardCharsets.UTF_8);
            FullHttpResponse filled = r.replace(Unpooled.wrappedBuffer(body));
            r.release();
            filled.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
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
        answer(ctx, status, codeFor(status), message(status, reason));
    }

    private static void answer(ChannelHandlerContext ctx, HttpResponseStatus status, String code, String message) {
        log.debug(
                "Refused an undecodable request from {}: {} ({})",
                ctx.channel().remoteAddress(),
                status.code(),
                message);
        String body = body(code, message);
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body.getBytes(StandardCharsets.UTF_8)));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    /** 413, 414 and 431 say the same as the gateway's 413 for a body: too large; the rest cannot be parsed. */
    static String codeFor(HttpResponseStatus status) {
        return switch (status.code()) {
            case 408 -> "request_timeout";
            case 413, 414, 431 -> "request_too_large";
            default -> "malformed_http";
        };
    }

    private static String message(HttpResponseStatus status, String reason) {
        return switch (status.code()) {
            case 408 -> "The request took too long to arrive.";
            case 413 -> "The request is larger than this gateway accepts.";
            case 414 -> "The request line is longer than this gateway accepts: " + reason;
            case 431 -> "The request's headers are larger than this gateway accepts: " + reason;
            default -> "The request could not be parsed as HTTP/1.1: " + reason;
        };
    }

    private static String body(String code, String message) {
        return OpenAiErrors.body("invalid_request_error", code, message);
    }
}
