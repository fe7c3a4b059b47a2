package dev.sluice.gateway.usage;

import static dev.sluice.gateway.usage.UsageExtractor.JSON;

import com.knuddels.jtokkit.api.Encoding;
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
 * {@link SseFramer} cuts the stream into events, forwards each as soon as it is complete and
 * hands this class its data.
 *
 * <p>Cost per event: the {@code data} payload is walked once with a streaming JSON parser that
 * reads only the fields that matter and skips the rest without decoding it; a tree is built only
 * for a {@code usage} object. Responses events name their type first, so reading stops after the
 * first field of any event that is neither a text delta nor terminal (e.g.
 * {@code response.output_text.done}, which repeats the whole text); the event is still forwarded.
 * Output text is appended to a buffer and tokenized in batches of a few KB, not per delta: BPE
 * per tiny delta would cost more and miscount across boundaries.
 *
 * <p>Feed it from one subscriber at a time. The methods are synchronized so that a cancel
 * handler on another thread reads a consistent count.
 */
public final class SseUsageTap {
    private static final int TEXT_BATCH_CHARS = 4096;
    private static final byte[] DONE = {'[', 'D', 'O', 'N', 'E', ']'};

    private final boolean stripUsageChunk;
    private final Encoding encoding;
    private final SseFramer framer = new SseFramer(this::readData);

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
        return framer.feed(chunk);
    }

    /** At the end of the stream: whatever was held (an event missing its blank line), inspected too. */
    public synchronized byte[] finish() {
        byte[] rest = framer.finish();
        countUncountedText();
        return rest;
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

    /** Records what an event's data tells; returns whether it is the usage chunk to strip. */
    private boolean readData(byte[] payload, int from, int to) {
        while (from < to && isSpace(payload[from])) from++;
        while (to > from && isSpace(payload[to - 1])) to--;
        if (Arrays.equals(payload, from, to, DONE, 0, DONE.length)) {
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
        return type.equals("response.completed")
                || type.equals("response.incomplete")
                || type.equals("response.failed");
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

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n';
    }
}
