package dev.sluice.gateway.estimate;

import static dev.sluice.gateway.estimate.JsonBodies.absent;
import static dev.sluice.gateway.estimate.JsonBodies.invalidType;
import static dev.sluice.gateway.estimate.JsonBodies.missing;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Estimates what a request may cost before it is admitted: the prompt counted with the model's
 * BPE tokenizer (jtokkit) and the output the request reserves. Thread-safe; create one and share
 * it. A conversation's messages (chat, Responses) are counted by {@link ConversationTokens}.
 *
 * <p>Runs on the event loop for every request. The body is parsed once, into a tree, straight
 * from the bytes (no String copy of the body), and only the texts that count are tokenized.
 * {@code TokenEstimatorSpeed} (test sources) measured this on a 2-core EPYC VM shared with other
 * builds. Exact BPE of one 100 KB message took 9-13 ms for prose and about 20 ms for base64-like
 * text (jtokkit spends about 0.3 µs per token there). That is too slow for an event loop, so
 * {@link TokenCounter} tokenizes at most 16 K characters per request exactly and samples beyond
 * that. A 100 KB request now takes about 2 ms for prose, 1 ms for 100 messages of 1 KB and
 * 5 ms for base64, and up to 2-3 times that while the machine is busy. The JSON parse takes
 * 0.2-0.5 ms of that.
 */
public final class TokenEstimator {
    /**
     * The largest output limit accepted (OpenAI's own schema bound, a 32-bit integer). With n at
     * most {@link #MAX_CHOICES}, no product of them comes near overflowing, and a request beyond
     * a tier's windows is refused as too large, not wrapped into a small number.
     */
    static final long MAX_OUTPUT_TOKENS = Integer.MAX_VALUE;
    /** OpenAI's bounds on {@code n} and {@code best_of}. */
    static final long MAX_CHOICES = 128;

    static final long MAX_BEST_OF = 20;
    /** OpenAI's bound on {@code n} for images. */
    static final long MAX_IMAGES = 10;
    /** OpenAI's defaults when these endpoints' bodies name no model. */
    static final String DEFAULT_IMAGE_MODEL = "dall-e-2";

    static final String DEFAULT_MODERATION_MODEL = "omni-moderation-latest";

    private final ModelEncodings encodings;

    public TokenEstimator() {
        this.encodings = new ModelEncodings(Encodings.newLazyEncodingRegistry());
    }

    /** The encoding that counts {@code model}'s tokens, e.g. for counting a stream's output. */
    public Encoding encodingFor(String model) {
        return encodings.forModel(model);
    }

    /**
     * @param path                   the tenant path, e.g. {@code /v1/chat/completions}
     * @param defaultMaxOutputTokens reserved when the request sets no output limit
     * @throws InvalidRequestException when the body is not a request this endpoint accepts
     */
    public RequestEstimate estimate(String path, byte[] body, long defaultMaxOutputTokens) {
        if (defaultMaxOutputTokens < 0) throw new IllegalArgumentException("defaultMaxOutputTokens < 0");
        Endpoint endpoint = Endpoint.fromPath(path);
        if (endpoint == Endpoint.OTHER) return RequestEstimate.other();

        ObjectNode root = JsonBodies.parseObject(body);
        switch (endpoint) {
            case BATCHES -> {
                return batch(root);
            }
            case MODERATIONS, IMAGES -> {
                if (absent(root.get("model")))
                    root.put("model", endpoint == Endpoint.IMAGES ? DEFAULT_IMAGE_MODEL : DEFAULT_MODERATION_MODEL);
            }
            default -> {}
        }
        String model = requireModel(root);
        TokenCounter counter = new TokenCounter(encodings.forModel(model));
        boolean stream = endpoint != Endpoint.EMBEDDINGS && optionalBoolean(root.get("stream"), "stream");
        boolean askedForUsage = (endpoint == Endpoint.CHAT || endpoint == Endpoint.COMPLETIONS) && includeUsage(root);

        long prompt;
        long outputs; // how many completions the output limit applies to
        String limitField;
        switch (endpoint) {
            case CHAT -> {
                prompt = ConversationTokens.chat(root, counter);
                outputs = positiveInteger(root, "n", 1, MAX_CHOICES);
                limitField = root.hasNonNull("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
                positiveInteger(
                        root, "max_tokens", 0, MAX_OUTPUT_TOKENS); // validated even when max_completion_tokens wins
            }
            case COMPLETIONS -> {
                Inputs inputs = textOrTokenInputs(root.get("prompt"), "prompt", counter);
                prompt = inputs.tokens();
                long n = positiveInteger(root, "n", 1, MAX_CHOICES);
                // best_of candidates are generated (and billed) server-side, for every prompt.
                outputs =
                        saturatedProduct(Math.max(n, positiveInteger(root, "best_of", 1, MAX_BEST_OF)), inputs.count());
                limitField = "max_tokens";
            }
            case EMBEDDINGS -> {
                prompt = textOrTokenInputs(root.get("input"), "input", counter).tokens();
                return new RequestEstimate(endpoint, model, prompt, 0, false, false);
            }
            case MODERATIONS -> {
                JsonNode input = root.get("input");
                prompt = input != null
                                && input.isArray()
                                && !input.isEmpty()
                                && input.get(0).isObject()
                        ? ConversationTokens.content(input, "input", counter) // multimodal parts
                        : textOrTokenInputs(input, "input", counter).tokens();
                return new RequestEstimate(endpoint, model, prompt, 0, false, false);
            }
            case IMAGES -> {
                prompt = counter.count(requiredString(root, "prompt"));
                long n = positiveInteger(root, "n", 1, MAX_IMAGES);
                long perImage = ImageTokens.perImage(optionalString(root, "size"), optionalString(root, "quality"));
                return new RequestEstimate(endpoint, model, prompt, saturatedProduct(perImage, n), false, false);
            }
            case SPEECH -> {
                String input = requiredString(root, "input");
                // Speech is priced per character: one output token stands for one character spoken.
                return new RequestEstimate(
                        endpoint,
                        model,
                        counter.count(input),
                        input.codePointCount(0, input.length()),
                        optionalString(root, "stream_format") != null
                                && "sse".equals(optionalString(root, "stream_format")),
                        false);
            }
            case RESPONSES -> {
                prompt = ConversationTokens.responses(root, counter);
                outputs = 1;
                limitField = "max_output_tokens";
            }
            default -> throw new IllegalStateException(endpoint.name());
        }
        long limit = positiveInteger(root, limitField, 0, MAX_OUTPUT_TOKENS);
        long perOutput = limit > 0 ? limit : defaultMaxOutputTokens;
        // Chat's own field is max_completion_tokens (max_tokens is deprecated, and refused by reasoning models).
        String uncapped = limit > 0 || defaultMaxOutputTokens < 1
                ? null
                : endpoint == Endpoint.CHAT ? "max_completion_tokens" : limitField;
        return new RequestEstimate(
                endpoint, model, prompt, saturatedProduct(perOutput, outputs), stream, askedForUsage, uncapped);
    }

    /** A batch's cost is its input file's, known from the upload: here only the body's shape is checked. */
    private static RequestEstimate batch(ObjectNode root) {
        requiredString(root, "input_file_id");
        requiredString(root, "endpoint");
        return new RequestEstimate(Endpoint.BATCHES, null, 0, 0, false, false);
    }

    private static String requiredString(ObjectNode root, String param) {
        JsonNode node = root.get(param);
        if (absent(node)) throw missing(param);
        if (!node.isString()) throw invalidType(param, "a string", node);
        return node.stringValue();
    }

    private static String optionalString(ObjectNode root, String param) {
        JsonNode node = root.get(param);
        if (absent(node)) return null;
        if (!node.isString()) throw invalidType(param, "a string", node);
        return node.stringValue();
    }

    private static String requireModel(ObjectNode root) {
        JsonNode model = root.get("model");
        if (absent(model)) {
            throw new InvalidRequestException("You must provide a model parameter.", "model");
        }
        if (!model.isString()) throw invalidType("model", "a string", model);
        if (model.stringValue().isBlank()) {
            throw new InvalidRequestException("You must provide a model parameter.", "model");
        }
        return model.stringValue();
    }

    private static boolean optionalBoolean(JsonNode node, String param) {
        if (absent(node)) return false;
        if (!node.isBoolean()) throw invalidType(param, "a boolean", node);
        return node.booleanValue();
    }

    private static boolean includeUsage(ObjectNode root) {
        JsonNode options = root.get("stream_options");
        if (absent(options)) return false;
        if (!options.isObject()) throw invalidType("stream_options", "an object", options);
        return optionalBoolean(options.get("include_usage"), "stream_options.include_usage");
    }

    /** A whole number in [1, max], or {@code otherwise} when it is absent or null; else a 400 naming the field. */
    private static long positiveInteger(ObjectNode root, String param, long otherwise, long max) {
        JsonNode node = root.get(param);
        if (absent(node)) return otherwise;
        if (!node.isIntegralNumber()) throw invalidType(param, "an integer", node);
        if (!node.canConvertToLong() || node.longValue() > max) {
            throw new InvalidRequestException(
                    "Invalid '" + param + "': integer above maximum value. " + "Expected a value <= " + max
                            + ", but got " + node + " instead.",
                    param);
        }
        long value = node.longValue();
        if (value < 1) {
            throw new InvalidRequestException(
                    "Invalid '" + param + "': integer below minimum value. " + "Expected a value >= 1, but got " + value
                            + " instead.",
                    param);
        }
        return value;
    }

    private record Inputs(long tokens, long count) {}

    /**
     * {@code prompt} (completions) and {@code input} (embeddings): a string, an array of strings,
     * an array of token ids, or an array of arrays of token ids. Token ids count as themselves.
     */
    private static Inputs textOrTokenInputs(JsonNode node, String param, TokenCounter counter) {
        if (absent(node)) throw missing(param);
        if (node.isString()) return new Inputs(counter.count(node.stringValue()), 1);
        if (!node.isArray()) throw invalidType(param, "a string or an array", node);
        if (node.isEmpty()) return new Inputs(0, 1);
        if (node.get(0).isNumber()) return new Inputs(tokenIds(node, param), 1);
        long tokens = 0;
        for (int i = 0; i < node.size(); i++) {
            JsonNode item = node.get(i);
            if (item.isString()) tokens += counter.count(item.stringValue());
            else if (item.isArray()) tokens += tokenIds(item, param + "[" + i + "]");
            else throw invalidType(param + "[" + i + "]", "a string or an array of integers", item);
        }
        return new Inputs(tokens, node.size());
    }

    private static long tokenIds(JsonNode ids, String param) {
        for (int i = 0; i < ids.size(); i++) {
            if (!ids.get(i).isIntegralNumber()) throw invalidType(param + "[" + i + "]", "an integer", ids.get(i));
        }
        return ids.size();
    }

    private static long saturatedProduct(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long product = a * b;
        return high != 0 || product < 0 ? Long.MAX_VALUE : product;
    }
}
