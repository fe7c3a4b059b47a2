package dev.sluice.lab.provider;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The lab's own JSON: stats and limits, written the same way on the provider's port and on the
 * gateway's, and the partial limits update of {@code PUT /_lab/limits}. Durations are plain
 * milliseconds so a script can set them without knowing any duration syntax.
 */
public final class LabJson {

    static final List<String> LIMIT_FIELDS = List.of(
            "requestsPerMinute",
            "tokensPerMinute",
            "maxInFlight",
            "pricePerMillionTokens",
            "latencyMs",
            "latencyJitter",
            "windowMs",
            "completionTokens",
            "inputTokensPerMinute",
            "outputTokensPerMinute");

    private LabJson() {}

    public static String stats(LabStats s) {
        ObjectNode root = JsonMapper.shared().createObjectNode();
        root.put("received", s.received());
        root.put("admitted", s.admitted());
        root.put("completed", s.completed());
        root.put("cancelled", s.cancelled());
        root.put("rejected429", s.rejected429());
        root.put("rejected429Requests", s.rejected429Requests());
        root.put("rejected429Tokens", s.rejected429Tokens());
        root.put("rejected503", s.rejected503());
        root.put("badRequests", s.badRequests());
        root.put("callsWithoutKey", s.callsWithoutKey());
        root.put("tokensBilled", s.tokensBilled());
        root.put("costUsd", s.costUsd());
        root.put("currentInFlight", s.currentInFlight());
        root.put("maxInFlightSeen", s.maxInFlightSeen());
        root.put("maxTokensInWindow", s.maxTokensInWindow());
        root.put("maxRequestsInWindow", s.maxRequestsInWindow());
        root.put("requestsInWindow", s.requestsInWindow());
        root.put("tokensInWindow", s.tokensInWindow());
        root.set("limits", limitsNode(s.limits()));
        return root.toString();
    }

    public static String limits(LabLimits l) {
        return limitsNode(l).toString();
    }

    private static ObjectNode limitsNode(LabLimits l) {
        ObjectNode node = JsonMapper.shared().createObjectNode();
        node.put("requestsPerMinute", l.requestsPerMinute());
        node.put("tokensPerMinute", l.tokensPerMinute());
        node.put("maxInFlight", l.maxInFlight());
        node.put("pricePerMillionTokens", l.pricePerMillionTokens());
        node.put("latencyMs", l.latency().toMillis());
        node.put("latencyJitter", l.latencyJitter());
        node.put("windowMs", l.windowMillis());
        node.put("completionTokens", l.completionTokens());
        node.put("inputTokensPerMinute", l.inputTokensPerMinute());
        node.put("outputTokensPerMinute", l.outputTokensPerMinute());
        return node;
    }

    /**
     * Applies a JSON object holding any subset of the limit fields to {@code current}.
     *
     * @throws IllegalArgumentException with a message naming the field, for any bad input
     */
    public static LabLimits patchLimits(LabLimits current, String json) {
        JsonNode root;
        try {
            root = JsonMapper.shared().readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("limits must be a JSON object; could not parse the body");
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("limits must be a JSON object with any of " + LIMIT_FIELDS);
        }
        LabLimits l = current;
        for (Map.Entry<String, JsonNode> field : root.properties()) {
            String name = field.getKey();
            JsonNode v = field.getValue();
            l = switch (name) {
                case "requestsPerMinute" -> l.withRequestsPerMinute(toInt(name, v));
                case "tokensPerMinute" -> l.withTokensPerMinute(toLong(name, v));
                case "maxInFlight" -> l.withMaxInFlight(toInt(name, v));
                case "pricePerMillionTokens" -> l.withPricePerMillionTokens(toDouble(name, v));
                case "latencyMs" -> l.withLatency(Duration.ofMillis(toLong(name, v)));
                case "latencyJitter" -> l.withLatencyJitter(toDouble(name, v));
                case "windowMs" -> l.withWindow(Duration.ofMillis(toLong(name, v)));
                case "completionTokens" -> l.withCompletionTokens(toInt(name, v));
                case "inputTokensPerMinute" -> l.withInputTokensPerMinute(toLong(name, v));
                case "outputTokensPerMinute" -> l.withOutputTokensPerMinute(toLong(name, v));
                default ->
                    throw new IllegalArgumentException(
                            "unknown limit '" + name + "'; known limits are " + LIMIT_FIELDS);
            };
        }
        return l;
    }

    private static long toLong(String name, JsonNode v) {
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new IllegalArgumentException(name + " must be an integer, was " + v);
        }
        return v.longValue();
    }

    private static int toInt(String name, JsonNode v) {
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            throw new IllegalArgumentException(name + " must be an integer, was " + v);
        }
        return v.intValue();
    }

    private static double toDouble(String name, JsonNode v) {
        if (!v.isNumber()) {
            throw new IllegalArgumentException(name + " must be a number, was " + v);
        }
        return v.doubleValue();
    }
}
