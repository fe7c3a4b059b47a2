package dev.sluice.lab.provider;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the simulator needs from an OpenAI request body: model, prompt tokens, the output cap and
 * how to answer (stream or not). Parsing refuses what OpenAI refuses, with the same kind of 400.
 *
 * @param maxTokens {@link ProviderSimulator#NO_MAX_TOKENS} when the request sets none; 0 for embeddings
 * @param inputs    number of inputs (embeddings answer one vector each)
 */
record LabRequest(
        Endpoint endpoint,
        String model,
        long promptTokens,
        long maxTokens,
        boolean stream,
        boolean includeUsage,
        int inputs) {

    enum Endpoint {
        CHAT,
        COMPLETIONS,
        EMBEDDINGS,
        RESPONSES
    }

    /** A request OpenAI would answer with 400; fields map onto the error body. */
    static final class BadRequestException extends RuntimeException {
        final String param;
        final String code;

        BadRequestException(String message, String param, String code) {
            super(message);
            this.param = param;
            this.code = code;
        }
    }

    static LabRequest parse(Endpoint endpoint, String body, PromptTokenCounter tokens) {
        return parse(endpoint, body, tokens, PromptCount.DEFAULT);
    }

    /** @param count how this provider counts a prompt (its tokenizer, a factor, its per-message framing) */
    static LabRequest parse(Endpoint endpoint, String body, PromptTokenCounter bpe, PromptCount count) {
        Counter tokens = new Counter(bpe, count);
        JsonNode root;
        try {
            root = JsonMapper.shared().readTree(body);
        } catch (JacksonException e) {
            root = null;
        }
        if (root == null || root.isMissingNode()) {
            throw new BadRequestException(
                    "We could not parse the JSON body of your request. (HINT: This likely means"
                            + " you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload.)",
                    null,
                    null);
        }
        if (!root.isObject()) {
            throw new BadRequestException("The request body must be a JSON object.", null, null);
        }
        JsonNode modelNode = root.get("model");
        if (modelNode == null
                || !modelNode.isString()
                || modelNode.stringValue().isBlank()) {
            throw new BadRequestException("you must provide a model parameter", "model", null);
        }
        String model = modelNode.stringValue();
        boolean stream = endpoint != Endpoint.EMBEDDINGS && root.path("stream").asBoolean(false);
        boolean includeUsage = root.path("stream_options").path("include_usage").asBoolean(false);

        return switch (endpoint) {
            case CHAT -> {
                JsonNode messages = required(root, "messages");
                if (!messages.isArray() || messages.isEmpty()) {
                    throw new BadRequestException(
                            "Invalid 'messages': expected a non-empty array.", "messages", "invalid_type");
                }
                double prompt = PromptTokenCounter.TOKENS_PER_REPLY;
                for (JsonNode message : messages) {
                    prompt += count.tokensPerMessage() + contentTokens(model, message.get("content"), tokens);
                }
                long max = maxTokens(root, "max_completion_tokens", "max_tokens");
                yield new LabRequest(endpoint, model, PromptCount.round(prompt), max, stream, includeUsage, 1);
            }
            case COMPLETIONS -> {
                JsonNode prompt = required(root, "prompt");
                yield new LabRequest(
                        endpoint,
                        model,
                        PromptCount.round(inputTokens(model, prompt, tokens, "prompt")),
                        maxTokens(root, "max_tokens"),
                        stream,
                        includeUsage,
                        1);
            }
            case EMBEDDINGS -> {
                JsonNode input = required(root, "input");
                int inputs =
                        input.isArray() && !input.isEmpty() && !input.get(0).isNumber() ? input.size() : 1;
                yield new LabRequest(
                        endpoint,
                        model,
                        PromptCount.round(inputTokens(model, input, tokens, "input")),
                        0,
                        false,
                        false,
                        inputs);
            }
            case RESPONSES -> {
                JsonNode input = required(root, "input");
                double prompt = PromptTokenCounter.TOKENS_PER_REPLY;
                JsonNode instructions = root.get("instructions");
                if (instructions != null && instructions.isString()) {
                    prompt += count.tokensPerMessage() + tokens.count(model, instructions.stringValue());
                }
                if (input.isString()) {
                    prompt += count.tokensPerMessage() + tokens.count(model, input.stringValue());
                } else if (input.isArray()) {
                    for (JsonNode item : input) {
                        prompt += count.tokensPerMessage() + contentTokens(model, item.get("content"), tokens);
                    }
                } else {
                    throw new BadRequestException(
                            "Invalid 'input': expected a string or an array.", "input", "invalid_type");
                }
                yield new LabRequest(
                        endpoint,
                        model,
                        PromptCount.round(prompt),
                        maxTokens(root, "max_output_tokens"),
                        stream,
                        includeUsage,
                        1);
            }
        };
    }

    private static JsonNode required(JsonNode root, String field) {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) {
            throw new BadRequestException(
                    "Missing required parameter: '" + field + "'.", field, "missing_required_parameter");
        }
        return node;
    }

    /** The first of the given fields that is present; each must be an integer >= 1, as OpenAI requires. */
    private static long maxTokens(JsonNode root, String... fields) {
        for (String field : fields) {
            JsonNode node = root.get(field);
            if (node == null || node.isNull()) {
                continue;
            }
            if (!node.isIntegralNumber() || !node.canConvertToLong()) {
                throw new BadRequestException(
                        "Invalid type for '" + field + "': expected an integer.", field, "invalid_type");
            }
            if (node.longValue() < 1) {
                throw new BadRequestException(
                        "Invalid '" + field + "': integer below minimum value. Expected a value" + " >= 1, but got "
                                + node.longValue() + " instead.",
                        field,
                        "integer_below_min_value");
            }
            return node.longValue();
        }
        return ProviderSimulator.NO_MAX_TOKENS;
    }

    /** A message's content: a string, or an array of parts whose text parts count. */
    private static double contentTokens(String model, JsonNode content, Counter tokens) {
        if (content == null || content.isNull()) {
            return 0;
        }
        if (content.isString()) {
            return tokens.count(model, content.stringValue());
        }
        double total = 0;
        if (content.isArray()) {
            for (JsonNode part : content) {
                JsonNode text = part.get("text");
                if (text != null && text.isString()) {
                    total += tokens.count(model, text.stringValue());
                }
            }
        }
        return total;
    }

    /** A prompt or embedding input: a string, strings, a token array, or token arrays. */
    private static double inputTokens(String model, JsonNode input, Counter tokens, String field) {
        if (input.isString()) {
            return tokens.count(model, input.stringValue());
        }
        if (!input.isArray()) {
            throw new BadRequestException(
                    "Invalid '" + field + "': expected a string or an array.", field, "invalid_type");
        }
        double total = 0;
        for (JsonNode item : input) {
            if (item.isString()) {
                total += tokens.count(model, item.stringValue());
            } else if (item.isNumber()) {
                total += 1; // already a token id
            } else if (item.isArray()) {
                total += item.size();
            } else {
                throw new BadRequestException(
                        "Invalid '" + field + "': expected strings or token arrays.", field, "invalid_type");
            }
        }
        return total;
    }

    /** The provider's count of a text: its method and factor over the shared BPE counter. */
    private record Counter(PromptTokenCounter bpe, PromptCount count) {
        double count(String model, String text) {
            return count.tokens(bpe, model, text);
        }
    }
}
