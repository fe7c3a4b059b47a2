package dev.sluice.gateway.objects;

import static dev.sluice.gateway.objects.ObjectJson.JSON;

import dev.sluice.gateway.estimate.Endpoint;
import dev.sluice.gateway.estimate.InvalidRequestException;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.estimate.RequestRewriter;
import dev.sluice.gateway.estimate.TokenEstimator;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Estimates a batch input file (JSONL, one {@code {custom_id, method, url, body}} request a line)
 * with the same estimator as a single call, so a batch is charged what its lines may cost. A line
 * whose body sets no output limit gets the tier's default written in: the file the provider
 * receives is the one estimated, and its estimate is a bound, not a guess. Pure; CPU-heavy for a
 * large file (every prompt is tokenized), so callers run it off the event loop.
 */
public final class BatchFileEstimator {
    /** OpenAI's own bound on the requests of one batch. */
    public static final int MAX_LINES = 50_000;

    static final Set<Endpoint> BATCHABLE =
            Set.of(Endpoint.CHAT, Endpoint.COMPLETIONS, Endpoint.EMBEDDINGS, Endpoint.RESPONSES, Endpoint.MODERATIONS);

    /** The file as the provider will receive it, and what its lines may cost. */
    public record Estimated(byte[] file, BatchFileEstimate estimate) {}

    private final TokenEstimator estimator;
    private final RequestRewriter rewriter;

    public BatchFileEstimator(TokenEstimator estimator, RequestRewriter rewriter) {
        this.estimator = estimator;
        this.rewriter = rewriter;
    }

    /**
     * @param defaultMaxTokens the tier's {@code default-max-tokens}, reserved and written into lines that set no limit
     * @throws InvalidRequestException naming the line (1-based) of the first line that is not a request Sluice can estimate
     */
    public Estimated estimate(byte[] jsonl, long defaultMaxTokens) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(jsonl.length + jsonl.length / 16);
        String model = null;
        long prompt = 0;
        long output = 0;
        long lines = 0;
        int lineNumber = 0;
        int start = 0;
        while (start < jsonl.length) {
            int end = start;
            while (end < jsonl.length && jsonl[end] != '\n') end++;
            lineNumber++;
            int stop = end > start && jsonl[end - 1] == '\r' ? end - 1 : end;
            if (!blank(jsonl, start, stop)) {
                if (++lines > MAX_LINES) throw line(lineNumber, "a batch holds at most " + MAX_LINES + " requests.");
                Line l = line(jsonl, start, stop, lineNumber, defaultMaxTokens);
                if (model == null) model = l.estimate.model();
                else if (!model.equals(l.estimate.model())) {
                    throw line(
                            lineNumber,
                            "model '" + l.estimate.model() + "' differs from the file's '" + model
                                    + "'; a batch's requests all use one model.");
                }
                prompt = saturatedSum(prompt, l.estimate.promptTokens());
                output = saturatedSum(output, l.estimate.maxOutputTokens());
                out.writeBytes(l.bytes);
                out.write('\n');
            }
            start = end + 1;
        }
        if (lines == 0) throw new InvalidRequestException("The batch file holds no requests.", "file");
        return new Estimated(out.toByteArray(), new BatchFileEstimate(model, prompt, output, lines));
    }

    private record Line(byte[] bytes, RequestEstimate estimate) {}

    private Line line(byte[] jsonl, int from, int to, int number, long defaultMaxTokens) {
        JsonNode node;
        try {
            node = JSON.readTree(new String(jsonl, from, to - from, StandardCharsets.UTF_8));
        } catch (JacksonException e) {
            throw line(number, "not valid JSON.");
        }
        if (node == null || !node.isObject())
            throw line(number, "expected a JSON object {custom_id, method, url, body}.");
        ObjectNode request = (ObjectNode) node;
        if (!request.path("custom_id").isString()) throw line(number, "'custom_id' must be a string.");
        if (!"POST".equals(request.path("method").asString(null))) throw line(number, "'method' must be POST.");
        String url = request.path("url").asString(null);
        Endpoint endpoint = Endpoint.fromPath(url);
        if (!BATCHABLE.contains(endpoint))
            throw line(
                    number,
                    "'url' " + (url == null ? "is missing" : "'" + url + "' is not an endpoint a batch can call")
                            + ".");
        JsonNode body = request.get("body");
        if (body == null || !body.isObject()) throw line(number, "'body' must be a JSON object.");
        byte[] bodyBytes = JSON.writeValueAsBytes(body);
        RequestEstimate estimate;
        try {
            estimate = estimator.estimate(url, bodyBytes, defaultMaxTokens);
        } catch (InvalidRequestException e) {
            throw line(number, e.getMessage());
        }
        if (estimate.stream()) throw line(number, "a batch's requests cannot stream.");
        byte[] capped = withCap(endpoint, body, bodyBytes, defaultMaxTokens);
        if (capped != bodyBytes) request.set("body", JSON.readTree(capped));
        return new Line(JSON.writeValueAsBytes(request), estimate);
    }

    /** The body with the output limit the estimate assumed written in, when it sets none. */
    private byte[] withCap(Endpoint endpoint, JsonNode body, byte[] bodyBytes, long cap) {
        if (cap < 1) return bodyBytes;
        return switch (endpoint) {
            case CHAT ->
                body.hasNonNull("max_tokens")
                        ? bodyBytes
                        : rewriter.withOutputCap(bodyBytes, "max_completion_tokens", cap);
            case COMPLETIONS -> rewriter.withOutputCap(bodyBytes, "max_tokens", cap);
            case RESPONSES -> rewriter.withOutputCap(bodyBytes, "max_output_tokens", cap);
            default -> bodyBytes; // embeddings, moderations: no output
        };
    }

    private static InvalidRequestException line(int number, String problem) {
        return new InvalidRequestException("Line " + number + " of the batch file: " + problem, "file");
    }

    private static boolean blank(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != ' ' && b[i] != '\t') return false;
        }
        return true;
    }

    private static long saturatedSum(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}
