package dev.sluice.gateway.usage;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the usage a provider reports in a complete (non-streamed) response body. Never throws: a
 * body without usage (an error, a proxy's HTML page) leaves the estimate standing.
 */
public final class UsageExtractor {
    /** Reads sub-trees in the middle of a document, which Jackson 3 refuses by default. */
    static final JsonMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private UsageExtractor() {}

    /**
     * Chat and completions ({@code usage.prompt_tokens}, {@code usage.completion_tokens}),
     * embeddings ({@code usage.prompt_tokens}, {@code usage.total_tokens}) and Responses
     * ({@code usage.input_tokens}, {@code usage.output_tokens}).
     */
    public static Optional<Usage> fromJson(byte[] body) {
        return body == null ? Optional.empty() : fromJson(body, body.length);
    }

    /** {@link #fromJson(byte[])} of the first {@code length} bytes of {@code body}. */
    static Optional<Usage> fromJson(byte[] body, int length) {
        if (length == 0) return Optional.empty();
        // Walks the top level and builds a tree only for "usage", which OpenAI writes last: a long
        // completion's text is skipped over, not materialised.
        try (JsonParser p = JSON.createParser(body, 0, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) return Optional.empty();
            Optional<Usage> usage = Optional.empty();
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                boolean isUsage = p.currentName().equals("usage");
                if (p.nextToken() == JsonToken.START_OBJECT && isUsage) {
                    usage = readUsage(p);
                } else {
                    p.skipChildren();
                }
            }
            return usage;
        } catch (JacksonException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Keys whose string values are generated text in chat, completions and Responses answers. */
    private static final Set<String> OUTPUT_TEXT_KEYS =
            Set.of("content", "text", "refusal", "arguments", "reasoning_content", "reasoning");

    /**
     * The generated text of a complete answer, for charging one that reports no usage: the
     * strings under {@code content}, {@code text}, {@code refusal}, {@code arguments} and
     * reasoning keys anywhere in it (chat choices, completions' {@code text}, Responses' output
     * parts and function calls), joined. A body cut short gives the text before the cut; one that
     * is not JSON, the empty string. Never throws.
     */
    static String outputText(byte[] body, int length) {
        StringBuilder text = new StringBuilder();
        if (length == 0) return "";
        try (JsonParser p = JSON.createParser(body, 0, length)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t == JsonToken.PROPERTY_NAME && p.currentName().equals("usage")) {
                    p.nextToken();
                    p.skipChildren();
                } else if (t == JsonToken.VALUE_STRING
                        && p.currentName() != null
                        && OUTPUT_TEXT_KEYS.contains(p.currentName())) {
                    // The parser reads a string's text only when asked: a body cut inside it fails here, and
                    // a one-choice answer is one string, so what passed of it is read from the bytes instead.
                    long start = p.currentTokenLocation().getByteOffset();
                    try {
                        text.append(p.getString());
                    } catch (JacksonException cut) {
                        if (start >= 0 && start < length) text.append(stringPrefix(body, (int) start, length));
                        return text.toString();
                    }
                }
            }
        } catch (JacksonException | IllegalArgumentException e) {
            // A cut or broken body: what was read before the break is what passed.
        }
        return text.toString();
    }

    /**
     * The text of the JSON string whose opening quote is at {@code quote}, as far as the first
     * {@code length} bytes hold it: escapes decoded, an escape or a character cut in half left out.
     */
    static String stringPrefix(byte[] body, int quote, int length) {
        int from = quote + (body[quote] == '"' ? 1 : 0);
        String raw = new String(body, from, Math.max(0, length - from), StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '"') break;
            if (c != '\\') {
                if (c != '\uFFFD' || i < raw.length() - 1) out.append(c); // a last character cut in half
                continue;
            }
            if (i + 1 >= raw.length()) break;
            char e = raw.charAt(++i);
            switch (e) {
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'u' -> {
                    if (i + 4 >= raw.length()) return out.toString();
                    try {
                        out.append((char) Integer.parseInt(raw.substring(i + 1, i + 5), 16));
                    } catch (NumberFormatException bad) {
                        return out.toString();
                    }
                    i += 4;
                }
                default -> out.append(e); // \" \\ \/
            }
        }
        return out.toString();
    }

    /**
     * {@link #fromUsageNode} of the object {@code p} is at (its START_OBJECT), read from the
     * parser without building a tree: this runs for every answer. Leaves {@code p} at the
     * object's END_OBJECT. As in a tree, a key given twice counts with its last value.
     */
    static Optional<Usage> readUsage(JsonParser p) {
        long input = -1, output = -1, prompt = -1, completion = -1, total = -1;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            long count = -1;
            if (value == JsonToken.VALUE_NUMBER_INT) {
                // BIG_INTEGER only past a long: no count, as canConvertToLong says of the tree's node.
                JsonParser.NumberType type = p.getNumberType();
                if (type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG)
                    count = Math.max(-1, p.getLongValue());
            } else {
                p.skipChildren();
            }
            switch (name) {
                case "input_tokens" -> input = count;
                case "output_tokens" -> output = count;
                case "prompt_tokens" -> prompt = count;
                case "completion_tokens" -> completion = count;
                case "total_tokens" -> total = count;
                default -> {}
            }
        }
        if (input >= 0) return Optional.of(new Usage(input, Math.max(output, 0)));
        if (prompt < 0) return Optional.empty();
        long completionTokens = completion >= 0 ? completion : total >= 0 ? Math.max(0, total - prompt) : 0;
        return Optional.of(new Usage(prompt, completionTokens));
    }

    /** A {@code usage} object in any of the shapes above; empty when it has no counts. */
    public static Optional<Usage> fromUsageNode(JsonNode usage) {
        if (usage == null || !usage.isObject()) return Optional.empty();
        JsonNode input = usage.get("input_tokens");
        if (isCount(input)) {
            JsonNode output = usage.get("output_tokens");
            return Optional.of(new Usage(input.longValue(), isCount(output) ? output.longValue() : 0));
        }
        JsonNode prompt = usage.get("prompt_tokens");
        if (!isCount(prompt)) return Optional.empty();
        JsonNode completion = usage.get("completion_tokens");
        JsonNode total = usage.get("total_tokens");
        long completionTokens = isCount(completion)
                ? completion.longValue()
                : isCount(total) ? Math.max(0, total.longValue() - prompt.longValue()) : 0;
        return Optional.of(new Usage(prompt.longValue(), completionTokens));
    }

    private static boolean isCount(JsonNode node) {
        return node != null && node.isIntegralNumber() && node.canConvertToLong() && node.longValue() >= 0;
    }
}
