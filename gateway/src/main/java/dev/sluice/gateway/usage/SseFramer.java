package dev.sluice.gateway.usage;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * Splits a server-sent-events byte stream, chunk by chunk, into events, hands each complete
 * event's {@code data} to a reader and forwards the event unless the reader drops it. Knows
 * nothing of what the data means.
 *
 * <p>Chunks may split anywhere, even inside a UTF-8 character: framing works on bytes and a
 * payload is only handed on whole. Each complete event is forwarded as soon as its terminating
 * blank line arrives; only an incomplete trailing event is held back. Events end at a blank line:
 * {@code \n\n}, {@code \r\n\r\n} or a mix (a lone {@code \r} as a line ending is not recognised;
 * an event that grows past {@link #MAX_HELD_EVENT_BYTES} is passed on unread rather than held, so
 * even such a stream is never buffered whole).
 *
 * <p>Not thread-safe: its owner feeds it from one subscriber at a time.
 */
final class SseFramer {
    static final int MAX_HELD_EVENT_BYTES = 4 * 1024 * 1024;
    private static final int RETAINED_BUFFER_BYTES = 64 * 1024;
    private static final byte[] EMPTY = new byte[0];
    private static final byte[] DATA = {'d', 'a', 't', 'a', ':'};

    /** Reads the data of one event. */
    interface DataReader {
        /**
         * The event's data lines, joined by {@code \n}, are {@code payload[from, to)}; called only
         * for an event that has a data line. Returns true to leave the event out of the stream.
         */
        boolean read(byte[] payload, int from, int to);
    }

    private final DataReader reader;

    private byte[] pending = EMPTY; // the incomplete trailing event, from index 0
    private int pendingLength;
    private boolean lineEmpty = true; // nothing but '\r' seen since the last '\n'
    private boolean passThrough; // the current event is too large to hold: forwarded unread

    SseFramer(DataReader reader) {
        this.reader = reader;
    }

    /** The bytes to forward now; may be {@code chunk} itself, which the caller must not modify. */
    byte[] feed(byte[] chunk) {
        if (chunk == null || chunk.length == 0) return EMPTY;
        byte[] data;
        int scanFrom;
        if (pendingLength == 0) {
            data = chunk;
            scanFrom = 0;
        } else {
            ensureCapacity(pendingLength + chunk.length);
            System.arraycopy(chunk, 0, pending, pendingLength, chunk.length);
            data = pending;
            scanFrom = pendingLength;
            pendingLength += chunk.length;
        }
        int length = data == chunk ? chunk.length : pendingLength;

        Forwarder out = new Forwarder(data);
        int eventStart = 0;
        for (int i = scanFrom; i < length; i++) {
            byte b = data[i];
            if (b == '\n') {
                if (lineEmpty) {
                    int eventEnd = i + 1;
                    if (passThrough) passThrough = false;
                    else if (readEvent(data, eventStart, eventEnd)) out.drop(eventStart, eventEnd);
                    eventStart = eventEnd;
                }
                lineEmpty = true;
            } else if (b != '\r') {
                lineEmpty = false;
            }
        }
        int forwardEnd = eventStart;
        if (passThrough || length - eventStart > MAX_HELD_EVENT_BYTES) {
            passThrough = true;
            forwardEnd = length;
        }
        byte[] forwarded = out.upTo(forwardEnd, chunk); // before hold(), which reuses the buffer
        hold(data, forwardEnd, length);
        return forwarded;
    }

    /** At the end of the stream: whatever was held (an event missing its blank line), read too. */
    byte[] finish() {
        byte[] rest = Arrays.copyOf(pending, pendingLength);
        pendingLength = 0;
        pending = EMPTY;
        boolean drop = rest.length > 0 && !passThrough && readEvent(rest, 0, rest.length);
        passThrough = false;
        lineEmpty = true;
        return drop ? EMPTY : rest;
    }

    private void hold(byte[] data, int from, int to) {
        int rest = to - from;
        if (data == pending) {
            System.arraycopy(pending, from, pending, 0, rest);
        } else if (rest > 0) {
            ensureCapacity(rest);
            System.arraycopy(data, from, pending, 0, rest);
        }
        pendingLength = rest;
        if (rest == 0 && pending.length > RETAINED_BUFFER_BYTES) pending = EMPTY;
    }

    private void ensureCapacity(int capacity) {
        if (pending.length < capacity) {
            pending = Arrays.copyOf(pending, Math.max(capacity, Math.max(1024, pending.length * 2)));
        }
    }

    /** Hands the data of the event [start, end) to the reader; returns whether to drop the event. */
    private boolean readEvent(byte[] event, int start, int end) {
        int from = -1;
        int to = -1;
        ByteArrayOutputStream joined = null; // several data lines form one payload (rare)
        int lineStart = start;
        while (lineStart < end) {
            int lineEnd = lineStart;
            while (lineEnd < end && event[lineEnd] != '\n') lineEnd++;
            int contentEnd = lineEnd > lineStart && event[lineEnd - 1] == '\r' ? lineEnd - 1 : lineEnd;
            if (isDataLine(event, lineStart, contentEnd)) {
                int valueStart = lineStart + DATA.length;
                if (valueStart < contentEnd && event[valueStart] == ' ') valueStart++;
                if (from < 0) {
                    from = valueStart;
                    to = contentEnd;
                } else {
                    if (joined == null) {
                        joined = new ByteArrayOutputStream();
                        joined.write(event, from, to - from);
                    }
                    joined.write('\n');
                    joined.write(event, valueStart, contentEnd - valueStart);
                }
            }
            lineStart = lineEnd + 1;
        }
        if (from < 0) return false;
        if (joined == null) return reader.read(event, from, to);
        byte[] payload = joined.toByteArray();
        return reader.read(payload, 0, payload.length);
    }

    private static boolean isDataLine(byte[] a, int from, int to) {
        if (to - from < DATA.length) return false;
        for (int i = 0; i < DATA.length; i++) {
            if (a[from + i] != DATA[i]) return false;
        }
        return true;
    }

    /** The forwarded bytes: a prefix of the scanned data, minus any dropped events. */
    private static final class Forwarder {
        private final byte[] data;
        private ByteArrayOutputStream kept; // only once something is dropped
        private int keptUpTo;

        Forwarder(byte[] data) {
            this.data = data;
        }

        void drop(int start, int end) {
            if (kept == null) kept = new ByteArrayOutputStream(data.length);
            kept.write(data, keptUpTo, start - keptUpTo);
            keptUpTo = end;
        }

        byte[] upTo(int end, byte[] chunk) {
            if (kept != null) {
                kept.write(data, keptUpTo, end - keptUpTo);
                return kept.toByteArray();
            }
            if (end == 0) return EMPTY;
            if (data == chunk && end == chunk.length) return chunk;
            return Arrays.copyOf(data, end);
        }
    }
}
