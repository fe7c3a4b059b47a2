package dev.sluice.gateway.estimate;

import static dev.sluice.gateway.estimate.JsonBodies.JSON;
import static dev.sluice.gateway.estimate.JsonBodies.absent;
import static dev.sluice.gateway.estimate.JsonBodies.invalidType;
import static dev.sluice.gateway.estimate.JsonBodies.missing;

import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The prompt of a conversation as OpenAI counts it: chat's messages and the Responses API's
 * input, each message wrapped in its few tokens, its content's parts (a flat charge for media),
 * and the tool and format definitions injected beside them. Checks the shapes it reads as the
 * API does, each fault a 400 naming the field.
 */
final class ConversationTokens {
    /** OpenAI's accounting for chat formats: each message is wrapped in 3 tokens, a name adds 1. */
    static final int TOKENS_PER_MESSAGE = 3;

    static final int TOKENS_PER_NAME = 1;
    /** Every reply is primed with {@code <|start|>assistant<|message|>}. */
    static final int REPLY_PRIMING_TOKENS = 3;
    /**
     * A flat charge for any non-text content part (image, audio, file): a high-detail 1024×1024
     * image is 765 tokens (85 base + 4 tiles × 170). The real cost depends on decoding the media,
     * which the gateway does not do; the real usage corrects it.
     */
    static final int NON_TEXT_PART_TOKENS = 765;

    private ConversationTokens() {}

    /** Chat's messages, the reply's priming, and the tools, functions and response format beside them. */
    static long chat(ObjectNode root, TokenCounter counter) {
        JsonNode messages = root.get("messages");
        if (absent(messages)) throw missing("messages");
        if (!messages.isArray()) throw invalidType("messages", "an array", messages);
        if (messages.isEmpty()) {
            throw new InvalidRequestException(
                    "Invalid 'messages': empty array. "
                            + "Expected an array with minimum length 1, but got an empty array instead.",
                    "messages");
        }
        long tokens = REPLY_PRIMING_TOKENS;
        for (int i = 0; i < messages.size(); i++) {
            JsonNode message = messages.get(i);
            String at = "messages[" + i + "]";
            if (!message.isObject()) throw invalidType(at, "an object", message);
            tokens += TOKENS_PER_MESSAGE;
            // As OpenAI's cookbook counts: every value of the message is encoded (role, content,
            // name, tool_call_id…); structured values (tool_calls) are counted as their JSON text.
            for (Map.Entry<String, JsonNode> field : message.properties()) {
                JsonNode value = field.getValue();
                if (field.getKey().equals("content")) {
                    tokens += content(value, at + ".content", counter);
                } else if (value.isString()) {
                    tokens += counter.count(value.stringValue());
                    if (field.getKey().equals("name")) tokens += TOKENS_PER_NAME;
                } else if (value.isContainer()) {
                    tokens += jsonTokens(value, counter);
                }
            }
        }
        // Tool and schema definitions are injected into the prompt; their JSON text is a close,
        // slightly high, stand-in for the format OpenAI renders them in.
        return tokens
                + jsonTokens(root.get("tools"), counter)
                + jsonTokens(root.get("functions"), counter)
                + jsonTokens(root.get("response_format"), counter);
    }

    /** The Responses API's instructions and input items, the reply's priming, and the tools and text format. */
    static long responses(ObjectNode root, TokenCounter counter) {
        long tokens = REPLY_PRIMING_TOKENS;
        JsonNode instructions = root.get("instructions");
        if (!absent(instructions)) {
            if (!instructions.isString()) throw invalidType("instructions", "a string", instructions);
            tokens += TOKENS_PER_MESSAGE + counter.count(instructions.stringValue());
        }
        JsonNode input = root.get("input");
        if (absent(input)) {
            // Allowed: a prompt template or previous_response_id can supply the input, which the
            // gateway cannot see; the real usage corrects the estimate.
        } else if (input.isString()) {
            tokens += TOKENS_PER_MESSAGE + counter.count(input.stringValue());
        } else if (input.isArray()) {
            for (int i = 0; i < input.size(); i++) {
                JsonNode item = input.get(i);
                String at = "input[" + i + "]";
                if (!item.isObject()) throw invalidType(at, "an object", item);
                JsonNode type = item.get("type");
                if (absent(type) || "message".equals(type.asString())) {
                    tokens += TOKENS_PER_MESSAGE;
                    JsonNode role = item.get("role");
                    if (role != null && role.isString()) tokens += counter.count(role.stringValue());
                    tokens += content(item.get("content"), at + ".content", counter);
                } else {
                    // function_call, function_call_output, reasoning…: their JSON text.
                    tokens += TOKENS_PER_MESSAGE + jsonTokens(item, counter);
                }
            }
        } else {
            throw invalidType("input", "a string or an array", input);
        }
        return tokens + jsonTokens(root.get("tools"), counter) + jsonTokens(root.get("text"), counter);
    }

    /** A message's content: a string, or an array of parts (chat and Responses part types). */
    static long content(JsonNode content, String at, TokenCounter counter) {
        if (absent(content)) return 0;
        if (content.isString()) return counter.count(content.stringValue());
        if (!content.isArray()) throw invalidType(at, "a string or an array", content);
        long tokens = 0;
        for (int j = 0; j < content.size(); j++) {
            JsonNode part = content.get(j);
            String partAt = at + "[" + j + "]";
            if (!part.isObject()) throw invalidType(partAt, "an object", part);
            String type = part.path("type").asString("");
            switch (type) {
                case "text", "input_text", "output_text" -> tokens += counter.count(partText(part, "text", partAt));
                case "refusal" -> tokens += counter.count(partText(part, "refusal", partAt));
                default -> tokens += NON_TEXT_PART_TOKENS;
            }
        }
        return tokens;
    }

    private static String partText(JsonNode part, String field, String partAt) {
        JsonNode text = part.get(field);
        if (absent(text)) throw missing(partAt + "." + field);
        if (!text.isString()) throw invalidType(partAt + "." + field, "a string", text);
        return text.stringValue();
    }

    private static long jsonTokens(JsonNode node, TokenCounter counter) {
        return absent(node) ? 0 : counter.count(JSON.writeValueAsString(node));
    }
}
