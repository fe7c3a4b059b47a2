package dev.sluice.lab.provider;

import dev.sluice.gateway.api.OpenAiDuration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON OpenAI answers with: full bodies, stream events and errors. Only the fields clients and
 * gateways actually read are filled in, but those exactly as OpenAI spells them.
 */
final class OpenAiShapes {
    /**
     * Ends every id, so ids are unique across runs: the gateway records who owns each one, in a
     * store that outlives this process, and the call numbers restart at 1 with every run.
     */
    static final String RUN = "r" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 41), 36);

    static final String ORGANIZATION = "org-sluice-lab";

    /** Common words that are one token each in cl100k and o200k, so "N tokens" reads as N words. */
    private static final String[] WORDS = {
        "the", "page", "text", "of", "and", "a", "to", "in", "is", "for", "book", "line", "that", "with", "this", "on",
        "as", "it", "by", "from", "each", "word", "part", "one"
    };

    private OpenAiShapes() {}

    private static ObjectNode object() {
        return JsonMapper.shared().createObjectNode();
    }

    /**
     * Completion tokens {@code [from, to)} as words. A piece after the first starts with its space, so
     * concatenated stream pieces equal the non-streaming text.
     */
    static String words(long from, long to) {
        StringBuilder out = new StringBuilder();
        for (long i = from; i < to; i++) {
            if (i > 0) {
                out.append(' ');
            }
            out.append(WORDS[(int) (i % WORDS.length)]);
        }
        return out.toString();
    }

    static String error(String message, String type, String code, String param) {
        ObjectNode error = object();
        error.put("message", message);
        error.put("type", type);
        error.put("param", param);
        error.put("code", code);
        ObjectNode root = object();
        root.set("error", error);
        return root.toString();
    }

    static String rejection(Admission.Rejected r, String model) {
        return switch (r.reason()) {
            case OVERLOADED ->
                error(
                        "The server is overloaded or not ready yet. (Sluice lab provider: " + r.used() + " of "
                                + r.limit() + " calls in flight.)",
                        "server_error",
                        "overloaded",
                        null);
            case REQUESTS_PER_MINUTE ->
                error(rateLimitMessage(model, "requests per min (RPM)", r), "requests", "rate_limit_exceeded", null);
            case TOKENS_PER_MINUTE ->
                error(rateLimitMessage(model, "tokens per min (TPM)", r), "tokens", "rate_limit_exceeded", null);
            case INPUT_TOKENS_PER_MINUTE ->
                error(
                        rateLimitMessage(model, "input tokens per min (ITPM)", r),
                        "input_tokens",
                        "rate_limit_exceeded",
                        null);
            case OUTPUT_TOKENS_PER_MINUTE ->
                error(
                        rateLimitMessage(model, "output tokens per min (OTPM)", r),
                        "output_tokens",
                        "rate_limit_exceeded",
                        null);
            case REQUEST_TOO_LARGE ->
                error(
                        "Request too large for " + model + " in organization " + ORGANIZATION
                                + " on tokens per min (TPM): Limit " + r.limit() + ", Requested " + r.requested()
                                + ". The input or output tokens must be reduced in order to run successfully.",
                        "tokens",
                        "rate_limit_exceeded",
                        null);
        };
    }

    private static String rateLimitMessage(String model, String limitName, Admission.Rejected r) {
        return "Rate limit reached for " + model + " in organization " + ORGANIZATION + " on " + limitName
                + ": Limit " + r.limit() + ", Used " + r.used() + ", Requested " + r.requested()
                + ". Please try again in " + OpenAiDuration.format(r.retryAfterMillis()) + ".";
    }

    private static ObjectNode usage(long prompt, long completion) {
        return usage("prompt_tokens", prompt, "completion_tokens", completion);
    }

    private static ObjectNode responsesUsage(long input, long output) {
        return usage("input_tokens", input, "output_tokens", output);
    }

    /** The read and written tokens under the endpoint's names, and their total. */
    private static ObjectNode usage(String readName, long read, String writtenName, long written) {
        ObjectNode usage = object();
        usage.put(readName, read);
        usage.put(writtenName, written);
        usage.put("total_tokens", read + written);
        return usage;
    }

    /** The non-streaming body for an admitted call. */
    static String body(LabRequest request, LabCall call, long createdSeconds) {
        long prompt = call.promptTokens();
        long completion = call.completionTokens();
        String text = words(0, completion);
        String finish = call.truncated() ? "length" : "stop";
        return switch (request.endpoint()) {
            case CHAT -> {
                ObjectNode message = object();
                message.put("role", "assistant");
                message.put("content", text);
                ObjectNode root = oneChoice(
                        chatHeader(request, call, "chat.completion", createdSeconds),
                        chatText("message", message),
                        finish);
                root.set("usage", usage(prompt, completion));
                yield root.toString();
            }
            case COMPLETIONS -> {
                ObjectNode root =
                        oneChoice(completionHeader(request, call, createdSeconds), completionText(text), finish);
                root.set("usage", usage(prompt, completion));
                yield root.toString();
            }
            case EMBEDDINGS -> {
                ObjectNode root = object();
                root.put("object", "list");
                ArrayNode data = root.putArray("data");
                for (int i = 0; i < request.inputs(); i++) {
                    ObjectNode item = data.addObject();
                    item.put("object", "embedding");
                    item.put("index", i);
                    ArrayNode vector = item.putArray("embedding");
                    for (int d = 0; d < 8; d++) {
                        // Deterministic, unit-ish, different per input: enough for a client to parse.
                        vector.add(Math.round(Math.sin((call.id() + i) * 31.0 + d) * 1e6) / 1e6);
                    }
                }
                root.put("model", request.model());
                ObjectNode usage = root.putObject("usage");
                usage.put("prompt_tokens", prompt);
                usage.put("total_tokens", prompt);
                yield root.toString();
            }
            case RESPONSES ->
                response(request, call, createdSeconds, completion, "completed").toString();
        };
    }

    private static ObjectNode header(String id, String objectType, long created, String model) {
        ObjectNode root = object();
        root.put("id", id);
        root.put("object", objectType);
        root.put("created", created);
        root.put("model", model);
        return root;
    }

    /** A chat object: the whole answer, or a stream's chunk. */
    private static ObjectNode chatHeader(LabRequest request, LabCall call, String objectType, long created) {
        return header("chatcmpl-lab" + call.id() + RUN, objectType, created, request.model());
    }

    /** A completions object, the whole answer and a stream's chunk alike. */
    private static ObjectNode completionHeader(LabRequest request, LabCall call, long created) {
        return header("cmpl-lab" + call.id(), "text_completion", created, request.model());
    }

    /**
     * Adds {@code root}'s one choice as OpenAI writes it: what {@code text} puts first (the index and
     * the text, each endpoint in its own order), then no logprobs and the finish reason (null while a
     * stream goes on).
     */
    private static ObjectNode oneChoice(ObjectNode root, Consumer<ObjectNode> text, String finishReason) {
        ObjectNode choice = root.putArray("choices").addObject();
        text.accept(choice);
        choice.putNull("logprobs");
        choice.put("finish_reason", finishReason);
        return root;
    }

    /** A chat choice's text: {@code content} under {@code key}, "message" in an answer, "delta" in a chunk. */
    private static Consumer<ObjectNode> chatText(String key, ObjectNode content) {
        return choice -> {
            choice.put("index", 0);
            choice.set(key, content);
        };
    }

    private static Consumer<ObjectNode> completionText(String text) {
        return choice -> {
            choice.put("text", text);
            choice.put("index", 0);
        };
    }

    /** A Responses API {@code response} object; {@code outputTokens} written so far. */
    private static ObjectNode response(
            LabRequest request, LabCall call, long created, long outputTokens, String progress) {
        ObjectNode root = object();
        root.put("id", "resp_lab" + call.id() + RUN);
        root.put("object", "response");
        root.put("created_at", created);
        boolean finished = progress.equals("completed");
        root.put("status", finished && call.truncated() ? "incomplete" : progress);
        if (finished && call.truncated()) {
            root.putObject("incomplete_details").put("reason", "max_output_tokens");
        } else {
            root.putNull("incomplete_details");
        }
        root.put("model", request.model());
        ArrayNode output = root.putArray("output");
        if (finished) {
            ObjectNode message = output.addObject();
            message.put("type", "message");
            message.put("id", "msg_lab" + call.id());
            message.put("status", call.truncated() ? "incomplete" : "completed");
            message.put("role", "assistant");
            ObjectNode part = message.putArray("content").addObject();
            part.put("type", "output_text");
            part.put("text", words(0, outputTokens));
            part.putArray("annotations");
            root.set("usage", responsesUsage(call.promptTokens(), outputTokens));
        } else {
            root.putNull("usage");
        }
        return root;
    }

    /** Renders one call's stream: an opening, content pieces by token range, and a closing. */
    interface StreamRenderer {
        String start();

        String content(long fromToken, long toToken);

        String end();
    }

    static StreamRenderer streamRenderer(LabRequest request, LabCall call, long created) {
        return switch (request.endpoint()) {
            case CHAT -> new ChatStream(request, call, created);
            case COMPLETIONS -> new CompletionStream(request, call, created);
            case RESPONSES -> new ResponsesStream(request, call, created);
            case EMBEDDINGS -> throw new IllegalArgumentException("embeddings do not stream");
        };
    }

    private static String data(ObjectNode event) {
        return "data: " + event + "\n\n";
    }

    static final String DONE = "data: [DONE]\n\n";

    /**
     * Chat and completions streams: chunks of one choice each; at the end a chunk that finishes the
     * choice, the usage in a chunk of no choices where the request asked for it, then [DONE].
     */
    private interface ChoiceStream extends StreamRenderer {
        LabRequest request();

        LabCall call();

        /** A new chunk with its id, object type, created and model. */
        ObjectNode chunkHeader();

        /** What the finishing chunk's choice holds: no more text. */
        Consumer<ObjectNode> noText();

        default String chunk(Consumer<ObjectNode> text, String finishReason) {
            ObjectNode root = oneChoice(chunkHeader(), text, finishReason);
            if (request().includeUsage()) {
                // OpenAI: with include_usage every chunk carries "usage": null except the last one.
                root.putNull("usage");
            }
            return data(root);
        }

        @Override
        default String end() {
            StringBuilder out = new StringBuilder(chunk(noText(), call().truncated() ? "length" : "stop"));
            if (request().includeUsage()) {
                ObjectNode last = chunkHeader();
                last.putArray("choices");
                last.set("usage", usage(call().promptTokens(), call().completionTokens()));
                out.append(data(last));
            }
            return out.append(DONE).toString();
        }
    }

    private record ChatStream(LabRequest request, LabCall call, long created) implements ChoiceStream {

        @Override
        public ObjectNode chunkHeader() {
            return chatHeader(request, call, "chat.completion.chunk", created);
        }

        @Override
        public Consumer<ObjectNode> noText() {
            return chatText("delta", object());
        }

        @Override
        public String start() {
            ObjectNode delta = object();
            delta.put("role", "assistant");
            delta.put("content", "");
            return chunk(chatText("delta", delta), null);
        }

        @Override
        public String content(long from, long to) {
            ObjectNode delta = object();
            delta.put("content", words(from, to));
            return chunk(chatText("delta", delta), null);
        }
    }

    private record CompletionStream(LabRequest request, LabCall call, long created) implements ChoiceStream {

        @Override
        public ObjectNode chunkHeader() {
            return completionHeader(request, call, created);
        }

        @Override
        public Consumer<ObjectNode> noText() {
            return completionText("");
        }

        @Override
        public String start() {
            return "";
        }

        @Override
        public String content(long from, long to) {
            return chunk(completionText(words(from, to)), null);
        }
    }

    /** Responses API streams named events and ends with response.completed; there is no [DONE]. */
    private static final class ResponsesStream implements StreamRenderer {
        private final LabRequest request;
        private final LabCall call;
        private final long created;
        private int sequence;

        ResponsesStream(LabRequest request, LabCall call, long created) {
            this.request = request;
            this.call = call;
            this.created = created;
        }

        private String event(String type, ObjectNode payload) {
            payload.put("type", type);
            payload.put("sequence_number", sequence++);
            return "event: " + type + "\n" + data(payload);
        }

        @Override
        public String start() {
            ObjectNode opened = object();
            opened.set("response", response(request, call, created, 0, "in_progress"));
            return event("response.created", opened);
        }

        @Override
        public String content(long from, long to) {
            ObjectNode delta = object();
            delta.put("item_id", "msg_lab" + call.id());
            delta.put("output_index", 0);
            delta.put("content_index", 0);
            delta.put("delta", words(from, to));
            return event("response.output_text.delta", delta);
        }

        @Override
        public String end() {
            ObjectNode done = object();
            done.put("item_id", "msg_lab" + call.id());
            done.put("output_index", 0);
            done.put("content_index", 0);
            done.put("text", words(0, call.completionTokens()));
            ObjectNode completed = object();
            completed.set("response", response(request, call, created, call.completionTokens(), "completed"));
            return event("response.output_text.done", done) + event("response.completed", completed);
        }
    }

    static String models(long createdSeconds) {
        ObjectNode root = object();
        root.put("object", "list");
        ArrayNode data = root.putArray("data");
        for (String id : new String[] {"gpt-4o", "gpt-4o-mini", "gpt-4.1-mini", "text-embedding-3-small"}) {
            ObjectNode model = data.addObject();
            model.put("id", id);
            model.put("object", "model");
            model.put("created", createdSeconds);
            model.put("owned_by", "sluice-lab");
        }
        return root.toString();
    }
}
