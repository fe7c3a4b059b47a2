package dev.sluice.gateway.acceptance.fuzz;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * HTTP/1.1 over a plain socket, one request per connection: the fuzz cases need bytes no HTTP
 * client will send (bad request lines, duplicate or broken framing, raw non-ASCII paths), and
 * a bound on every read, so a server that never answers shows as a hang and not as a stuck test.
 */
final class RawHttp {
    /** What came back. {@code status} is -1 when nothing did: see {@code closedEarly} and {@code timedOut}. */
    record Answer(int status, List<String[]> headers, byte[] body, boolean closedEarly, boolean timedOut, long millis) {
        String header(String name) {
            for (String[] h : headers) if (h[0].equalsIgnoreCase(name)) return h[1];
            return null;
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private RawHttp() {}

    /**
     * Sends {@code request}; with {@code finish} the client then half-closes (it has said all it will say),
     * else it keeps the connection open and waits. Reads one final answer (1xx are skipped) within {@code timeoutMs}.
     */
    static Answer exchange(int port, byte[] request, boolean finish, boolean head, int timeoutMs) {
        long start = System.nanoTime();
        long deadline = start + timeoutMs * 1_000_000L;
        long[] received = {0};
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), timeoutMs);
            s.setSoTimeout(timeoutMs);
            try {
                s.getOutputStream().write(request);
                s.getOutputStream().flush();
                if (finish) s.shutdownOutput();
            } catch (IOException writeFailed) {
                // The server may answer and close before reading all of a large request: read what it said.
            }
            Reader in = new Reader(new BufferedInputStream(s.getInputStream()), s, deadline, received);
            while (true) {
                String statusLine = in.line();
                if (statusLine == null) return new Answer(-1, List.of(), new byte[0], true, false, ms(start));
                String[] parts = statusLine.split(" ", 3);
                if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
                    return new Answer(
                            -2,
                            Collections.singletonList(new String[] {"status-line", statusLine}),
                            new byte[0],
                            false,
                            false,
                            ms(start));
                }
                int status = Integer.parseInt(parts[1]);
                List<String[]> headers = new ArrayList<>();
                String line;
                while ((line = in.line()) != null && !line.isEmpty()) {
                    int colon = line.indexOf(':');
                    if (colon > 0)
                        headers.add(new String[] {
                            line.substring(0, colon).trim(),
                            line.substring(colon + 1).trim()
                        });
                }
                if (status >= 100 && status < 200) continue; // interim (100 Continue): the final answer follows
                byte[] body = head || status == 204 || status == 304 ? new byte[0] : body(in, headers);
                return new Answer(status, headers, body, false, false, ms(start));
            }
        } catch (SocketTimeoutException e) {
            // What had arrived tells a server that never answered from one that stopped half way.
            return new Answer(
                    -1,
                    Collections.singletonList(new String[] {"received", Long.toString(received[0])}),
                    new byte[0],
                    false,
                    true,
                    ms(start));
        } catch (IOException e) {
            // Reset by the server: it refused the connection's bytes without an answer.
            return new Answer(
                    -1,
                    Collections.singletonList(new String[] {"io", e.toString()}),
                    new byte[0],
                    true,
                    false,
                    ms(start));
        }
    }

    private static long ms(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000L;
    }

    private static byte[] body(Reader in, List<String[]> headers) throws IOException {
        String length = null;
        String encoding = null;
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase("content-length")) length = h[1];
            if (h[0].equalsIgnoreCase("transfer-encoding")) encoding = h[1].toLowerCase(Locale.ROOT);
        }
        if (encoding != null && encoding.contains("chunked")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (true) {
                String size = in.line();
                if (size == null) return out.toByteArray();
                int semi = size.indexOf(';');
                int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                if (n == 0) {
                    while (true) { // trailers
                        String t = in.line();
                        if (t == null || t.isEmpty()) break;
                    }
                    return out.toByteArray();
                }
                out.write(in.bytes(n));
                in.line();
            }
        }
        if (length != null) return in.bytes(Integer.parseInt(length.trim()));
        return in.rest();
    }

    /** Buffered reads against one deadline for the whole answer. */
    private static final class Reader {
        private final InputStream in;
        private final Socket socket;
        private final long deadline;
        private final long[] received;

        Reader(InputStream in, Socket socket, long deadline, long[] received) {
            this.in = in;
            this.socket = socket;
            this.deadline = deadline;
            this.received = received;
        }

        private int read() throws IOException {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) throw new SocketTimeoutException("answer not complete in time");
            socket.setSoTimeout((int) Math.max(1, left));
            int c = in.read();
            if (c != -1) received[0]++;
            return c;
        }

        String line() throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            int c;
            while ((c = read()) != -1) {
                if (c == '\n') break;
                if (c != '\r') b.write(c);
            }
            if (c == -1 && b.size() == 0) return null;
            return b.toString(StandardCharsets.ISO_8859_1);
        }

        byte[] bytes(int n) throws IOException {
            byte[] out = new byte[n];
            for (int i = 0; i < n; i++) {
                int c = read();
                if (c == -1) return Arrays.copyOf(out, i);
                out[i] = (byte) c;
            }
            return out;
        }

        byte[] rest() throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            int c;
            while ((c = read()) != -1) b.write(c);
            return b.toByteArray();
        }
    }
}
