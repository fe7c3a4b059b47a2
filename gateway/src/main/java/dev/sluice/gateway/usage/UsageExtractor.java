package dev.sluice.gateway.usage;

import java.util.Optional;
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

    private UsageExtractor() {
    }

    /**
     * Chat and completions ({@code usage.prompt_tokens}, {@code usage.completion_tokens}),
     * embeddings ({@code usage.prompt_tokens}, {@code usage.total_tokens}) and Responses
     * ({@code usage.input_tokens}, {@code usage.output_tokens}).
     */
    public static Optional<Usage> fromJson(byte[] body) {
        if (body == null || body.length == 0) return Optional.empty();
        // Walks the top level and builds a tree only for "usage", which OpenAI writes last: a long
        // completion's text is skipped over, not materialised.
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) return Optional.empty();
            Optional<Usage> usage = Optional.empty();
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                boolean isUsage = p.currentName().equals("usage");
                if (p.nextToken() == JsonToken.START_OBJECT && isUsage) {
                    usage = fromUsageNode(JSON.readTree(p));
                } else {
                    p.skipChildren();
                }
            }
            return usage;
        } catch (JacksonException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** A {@code usage} object in any of the shapes above; empty when it has no counts. */
    static Optional<Usage> fromUsageNode(JsonNode usage) {
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
        long completionTokens = isCount(completion) ? completion.longValue()
                : isCount(total) ? Math.max(0, total.longValue() - prompt.longValue()) : 0;
        return Optional.of(new Usage(prompt.longValue(), completionTokens));
    }

    private static boolean isCount(JsonNode node) {
        return node != null && node.isIntegralNumber() && node.canConvertToLong() && node.longValue() >= 0;
    }
}
