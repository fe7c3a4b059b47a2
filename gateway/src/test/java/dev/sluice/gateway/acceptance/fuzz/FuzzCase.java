package dev.sluice.gateway.acceptance.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One generated request. {@code template} names the generator that made it (what failures are
 * grouped by); {@code shown} is the request as printed in a report, truncated.
 */
record FuzzCase(
        String category,
        String template,
        byte[] bytes,
        Expect expect,
        boolean finish,
        boolean head,
        String shown,
        String id) {
    /** Carries {@link #id} on every built request, so a hang can be told apart: reached the provider or not. */
    static final String ID_HEADER = "X-Fuzz-Case";

    private static final AtomicLong IDS = new AtomicLong();

    /** What a correct gateway may answer. */
    enum Expect {
        /** A valid request: a 2xx. */
        OK,
        /** A 2xx (the request may be valid) or a 4xx with an OpenAI-shaped error body. */
        CLEAN,
        /** Only a 4xx with an OpenAI-shaped error body: a 2xx would be a bypass. */
        REFUSED,
        /**
         * The client sent an incomplete or oversized request and then half-closed: a 4xx as
         * above, or the connection closed without an answer. Never a 5xx or a hang.
         */
        REFUSED_OR_CLOSED,
        /** The client stalls and keeps the connection open: the server must close it or answer 4xx, not wait forever. */
        STALL
    }

    /** Builds a request line, headers and body as bytes; Host and Content-Length are added unless told otherwise. */
    static final class Builder {
        private final String category;
        private final String template;
        private String method = "POST";
        private byte[] target = "/v1/chat/completions".getBytes(StandardCharsets.ISO_8859_1);
        private String version = "HTTP/1.1";
        private final List<byte[]> headers = new ArrayList<>();
        private byte[] body = new byte[0];
        private boolean host = true;
        private boolean contentLength = true;
        private boolean close = true;
        private Expect expect = Expect.CLEAN;
        private byte[] raw;

        Builder(String category, String template) {
            this.category = category;
            this.template = template;
        }

        Builder method(String m) {
            this.method = m;
            return this;
        }

        Builder target(String t) {
            this.target = t.getBytes(StandardCharsets.UTF_8);
            return this;
        }

        Builder target(byte[] t) {
            this.target = t;
            return this;
        }

        Builder version(String v) {
            this.version = v;
            return this;
        }

        Builder header(String name, String value) {
            return header((name + ": " + value).getBytes(StandardCharsets.UTF_8));
        }

        Builder header(byte[] line) {
            headers.add(line);
            return this;
        }

        Builder json(String b) {
            header("Content-Type", "application/json");
            return body(b.getBytes(StandardCharsets.UTF_8));
        }

        Builder body(byte[] b) {
            this.body = b;
            return this;
        }

        Builder noHost() {
            this.host = false;
            return this;
        }

        Builder noContentLength() {
            this.contentLength = false;
            return this;
        }

        Builder keepAlive() {
            this.close = false;
            return this;
        }

        Builder expect(Expect e) {
            this.expect = e;
            return this;
        }

        /** Exactly these bytes, nothing added. */
        Builder raw(byte[] bytes) {
            this.raw = bytes;
            return this;
        }

        FuzzCase build() {
            byte[] bytes;
            String id = Long.toString(IDS.incrementAndGet());
            if (raw != null) {
                bytes = raw;
            } else {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                out.writeBytes((method + " ").getBytes(StandardCharsets.ISO_8859_1));
                out.writeBytes(target);
                out.writeBytes((" " + version + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                if (host) out.writeBytes("Host: 127.0.0.1\r\n".getBytes(StandardCharsets.ISO_8859_1));
                out.writeBytes((ID_HEADER + ": " + id + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                for (byte[] h : headers) {
                    out.writeBytes(h);
                    out.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                }
                if (contentLength
                        && (body.length > 0
                                || method.equals("POST")
                                || method.equals("PUT")
                                || method.equals("PATCH"))) {
                    out.writeBytes(("Content-Length: " + body.length + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                }
                if (close) out.writeBytes("Connection: close\r\n".getBytes(StandardCharsets.ISO_8859_1));
                out.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                out.writeBytes(body);
                bytes = out.toByteArray();
            }
            // Only an incomplete request is followed by the client's half-close (its "that is all"): the server
            // may close on it, and a complete request must be answered before the client says anything more.
            boolean finish = expect == Expect.REFUSED_OR_CLOSED;
            return new FuzzCase(
                    category, template, bytes, expect, finish, "HEAD".equals(method) && raw == null, show(bytes), id);
        }

        private static String show(byte[] bytes) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < bytes.length && b.length() < 300; i++) {
                int c = bytes[i] & 0xff;
                if (c == '\r') b.append("\\r");
                else if (c == '\n') b.append("\\n");
                else if (c < 0x20 || c >= 0x7f) b.append(String.format("\\x%02x", c));
                else b.append((char) c);
            }
            if (bytes.length > 0 && b.length() >= 300)
                b.append("... (").append(bytes.length).append(" bytes)");
            return b.toString();
        }
    }
}
