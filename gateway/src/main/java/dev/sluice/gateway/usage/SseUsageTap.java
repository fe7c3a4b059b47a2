package dev.sluice.gateway.usage;

import static dev.sluice.gateway.usage.UsageExtractor.JSON;

import com.knuddels.jtokkit.api.Encoding;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

/**
 * Watches a server-sent-events stream as it passes through the gateway, chunk by chunk, and
 * records the usage the provider reports (a chat/completions chunk with {@code usage}, or the
 * Responses API's terminal {@code response.completed} event) and the output text seen so far.
 *
 * <p>Chunks may split anywhere, even inside a UTF-8 character. Each complete event is forwarded
 * as soon as its terminating blank line arrives; only an incomplete trailing event is held back.
 * Events end at a blank line: {@code \n\n}, {@code \r\n\r\n} or a mix (a lone {@code \r} as a line
 * ending is not recognised; an event that grows past {@link #MAX_HELD_EVENT_BYTES} is passed on
 * uninspected rather than held, so even such a stream is never buffered whole).
 *
 * <p>Cost per event: the {@code data} payload is walked once with a streaming JSON parser that
 * reads only the fields that matter and skips the rest without decoding it; a tree is built only
 * for a {@code usage} object. Responses events name their type first, so reading stops after the
 * first field of any event that is neither a text delta nor terminal (e.g.
 * {@code response.output_text.done}, which repeats the whole text); the event is still forwarded. Output text is appended to a buffer and tokenized in batches
 * of a few KB, not per delta: BPE per tiny delta would cost more and miscount across boundaries.
 *
 * <p>Feed it from one subscriber at a time. The methods are synchronized so that a cancel
 * handler on another thread reads a consistent count.
 */
public final class SseUsageTap {
    static final int MAX_HELD_EVENT_BYTES = 4 * 1024 * 1024;
    private static final int TEXT_BATCH_CHARS = 4096;
    private static final int RETAINED_BUFFER_BYTES = 64 * 1024;
    private static final byte[] EMPTY = new byte[0];
    private static final byte[] DATA = {'d', 'a', 't', 'a', ':'};
    private static final byte[] DONE = {'[', 'D', 'O', 'N', 'E', ']'};

    private final boolean stripUsageChunk;
    private final Encoding encoding;

    private byte[] pending = EMPTY; // the incomplete trailing event, from index 0
    private int pendingLength;
    private boolean lineEmpty = true; // nothing but '\r' seen since the last '\n'
    private boolean passThrough; // the current event is too large to hold: forwarded uninspected

    private final StringBuilder uncountedText = new StringBuilder();
    private long countedTokens;
    private long countedAtUsage;
    private Usage usage;
    private boolean done;

    /**
     * @param stripUsageChunk true when the gateway added {@code include_usage} and the client did
     *                        not ask for it: the extra usage-only chunk is then removed
     * @param encoding        counts the output text (the model's encoding)
     */
    public SseUsageTap(boolean stripUsageChunk, Encoding encoding) {
        this.stripUsageChunk = stripUsageChunk;
        this.encoding = Objects.requireNonNull(encoding, "encoding");
    }

    /** The bytes to forward now; may be {@code chunk} itself, which the caller must not modify. */
    public synchronized byte[] feed(byte[] chunk) {
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
                    else if (inspect(data, eventStart, eventEnd)) out.drop(eventStart, eventEnd);
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

    /** At the end of the stream: whatever was held (an event missing its blank line), inspected too. */
    public synchronized byte[] finish() {
        byte[] rest = Arrays.copyOf(pending, pendingLength);
        pendingLength = 0;
        pending = EMPTY;
        boolean drop = rest.length > 0 && !passThrough && inspect(rest, 0, rest.length);
        passThrough = false;
        lineEmpty = true;
        countUncountedText();
        return drop ? EMPTY : rest;
    }

    /** The usage the provider reported, once its chunk or terminal event has passed. */
    public synchronized Optional<Usage> usage() {
        return Optional.ofNullable(usage);
    }

    /** A usage is the provider's count of everything before it: text after it is counted apart. */
    private void usageSeen(Usage u) {
        usage = u;
        countUncountedText();
        countedAtUsage = countedTokens;
    }

    /**
     * Output tokens streamed after the last usage the provider reported: a provider that reports
     * its usage before the end of its text reported less than it wrote. 0 without a usage.
     */
    public synchronized long outputTokensAfterUsage() {
        if (usage == null) return 0;
        countUncountedText();
        return countedTokens - countedAtUsage;
    }

    /** Output tokens in the text streamed so far: what a stream cut short really produced. */
    public synchronized long observedOutputTokens() {
        countUncountedText();
        return countedTokens;
    }

    /** The stream ended properly: {@code [DONE]}, or a terminal Responses event. */
    public synchronized boolean sawDone() {
        return done;
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

    /** Records what the event [start, end) tells; returns whether it is the usage chunk to strip. */
    private boolean inspect(byte[] event, int start, int end) {
        int from = -1;
        int to = -1;
        ByteArrayOutputStream joined = null; // several data lines form one payload (rare)
        int lineStart = start;
        while (lineStart < end) {
            int lineEnd = lineStart;
            while (lineEnd < end && event[lineEnd] != '\n') lineEnd++;
            int contentEnd = lineEnd > lineStart && event[lineEnd - 1] == '\r' ? lineEnd - 1 : lineEnd;
            if (startsWith(event, lineStart, contentEnd, DATA)) {
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
        byte[] payload = event;
        if (joined != null) {
            payload = joined.toByteArray();
            from = 0;
            to = payload.length;
        }
        if (from < 0) return false;
        while (from < to && isSpace(payload[from])) from++;
        while (to > from && isSpace(payload[to - 1])) to--;
        if (to - from == DONE.length && startsWith(payload, from, to, DONE)) {
            done = true;
            return false;
        }
        if (from == to || payload[from] != '{') return false;
        try {
            return inspectJson(payload, from, to - from);
        } catch (JacksonException | IllegalArgumentException e) {
            return false; // not ours to judge: forwarded as it came
        }
    }

    private boolean inspectJson(byte[] payload, int offset, int length) {
        try (JsonParser p = JSON.createParser(payload, offset, length)) {
            p.nextToken();
            String type = null;
            String delta = null;
            Usage responseUsage = null;
            int choices = -1;
            boolean hasUsageObject = false;
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "type" -> {
                        if (value != JsonToken.VALUE_STRING) {
                            p.skipChildren();
                            break;
                        }
                        type = p.getString();
                        if (!isTerminal(type) && !isCountedDelta(type)) return false;
                    }
                    case "choices" -> {
                        if (value == JsonToken.START_ARRAY) choices = readChoices(p);
                        else p.skipChildren();
                    }
                    case "usage" -> {
                        if (value == JsonToken.START_OBJECT) {
                            hasUsageObject = true;
                            UsageExtractor.readUsage(p).ifPresent(this::usageSeen);
                        } else {
                            p.skipChildren();
                        }
                    }
                    case "delta" -> {
                        if (value == JsonToken.VALUE_STRING) delta = p.getString();
                        else p.skipChildren();
                    }
                    case "response" -> {
                        if (value == JsonToken.START_OBJECT) responseUsage = readResponseUsage(p);
                        else p.skipChildren();
                    }
                    default -> p.skipChildren();
                }
            }
            if (type != null) {
                if (isTerminal(type)) {
                    done = true;
                    if (responseUsage != null) usageSeen(responseUsage);
                } else if (delta != null && isCountedDelta(type)) {
                    addText(delta);
                }
                return false;
            }
            // Exactly the chunk include_usage adds: no choices, a usage object.
            return stripUsageChunk && choices == 0 && hasUsageObject;
        }
    }

    /**
     * Output text of a chat/completions chunk: {@code choices[].text}, and in
     * {@code choices[].delta} the content, refusal, reasoning (some providers stream it as
     * {@code reasoning_content} or {@code reasoning}) and tool-call names and arguments: all of
     * it is billed as output. Returns the number of choices.
     */
    private int readChoices(JsonParser p) {
        int count = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            count++;
            if (p.currentToken() != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
            }
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("delta") && value == JsonToken.START_OBJECT) readDelta(p);
                else if (name.equals("text") && value == JsonToken.VALUE_STRING) addText(p.getString());
                else p.skipChildren();
            }
        }
        return count;
    }

    private void readDelta(JsonParser p) {
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            switch (name) {
                case "content", "refusal", "reasoning_content", "reasoning" -> {
                    if (value == JsonToken.VALUE_STRING) addText(p.getString());
                    else p.skipChildren();
                }
                case "tool_calls" -> {
                    if (value == JsonToken.START_ARRAY) readToolCalls(p);
                    else p.skipChildren();
                }
                default -> p.skipChildren();
            }
        }
    }

    private void readToolCalls(JsonParser p) {
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
            }
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                boolean function = p.currentName().equals("function");
                if (p.nextToken() != JsonToken.START_OBJECT || !function) {
                    p.skipChildren();
                    continue;
                }
                while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                    String name = p.currentName();
                    if (p.nextToken() == JsonToken.VALUE_STRING && (name.equals("name") || name.equals("arguments"))) {
                        addText(p.getString());
                    } else {
                        p.skipChildren();
                    }
                }
            }
        }
    }

    /** {@code response.usage} of a Responses event; the rest of the response is skipped. */
    private static Usage readResponseUsage(JsonParser p) {
        Usage found = null;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            boolean isUsage = p.currentName().equals("usage");
            if (p.nextToken() == JsonToken.START_OBJECT && isUsage) {
                found = UsageExtractor.readUsage(p).orElse(found);
            } else {
                p.skipChildren();
            }
        }
        return found;
    }

    /** Terminal Responses events; each carries the final usage. */
    private static boolean isTerminal(String type) {
        return type.equals("response.completed") || type.equals("response.incomplete") || type.equals("response.failed");
    }

    /**
     * Responses events that stream generated text (output text, refusals, function-call
     * arguments, reasoning summaries…). Audio deltas are base64, not text.
     */
    private static boolean isCountedDelta(String type) {
        return type.startsWith("response.") && type.endsWith(".delta") && !type.equals("response.audio.delta");
    }

    private void addText(String text) {
        uncountedText.append(text);
        if (uncountedText.length() >= TEXT_BATCH_CHARS) countUncountedText();
    }

    private void countUncountedText() {
        if (uncountedText.isEmpty()) return;
        countedTokens += encoding.countTokensOrdinary(uncountedText.toString());
        uncountedText.setLength(0);
    }

    private static boolean startsWith(byte[] a, int from, int to, byte[] prefix) {
        if (to - from < prefix.length) return false;
        for (int i = 0; i < prefix.length; i++) {
            if (a[from + i] != prefix[i]) return false;
        }
        return true;
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n';
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
