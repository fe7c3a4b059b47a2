package dev.sluice.gateway.estimate;

import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Parsing of request bodies and the client-facing wording of what is wrong with them. */
final class JsonBodies {
    /** Trailing garbage is refused: the upstream would refuse it too, after we had charged for it. */
    static final JsonMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private JsonBodies() {}

    static ObjectNode parseObject(byte[] body) {
        JsonNode root;
        try {
            root = body == null || body.length == 0 ? null : JSON.readTree(body);
        } catch (JacksonException e) {
            throw notJson(e.getLocation());
        }
        if (root == null || root.isMissingNode()) throw notJson(null);
        if (!root.isObject()) {
            throw new InvalidRequestException(
                    "The request body must be a JSON object, but got " + describe(root) + " instead.", null);
        }
        return (ObjectNode) root;
    }

    static InvalidRequestException notJson(TokenStreamLocation at) {
        String where = at == null || at.getLineNr() < 1
                ? ""
                : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
        return new InvalidRequestException(
                "We could not parse the JSON body of your request" + where
                        + ". The API expects a JSON object in the body; what was sent was not valid JSON.",
                null);
    }

    static InvalidRequestException missing(String param) {
        return new InvalidRequestException("Missing required parameter: '" + param + "'.", param);
    }

    static InvalidRequestException invalidType(String param, String expected, JsonNode got) {
        return new InvalidRequestException(
                "Invalid type for '" + param + "': expected " + expected + ", but got " + describe(got) + " instead.",
                param);
    }

    static String describe(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) return "null";
        if (node.isString()) return "a string";
        if (node.isBoolean()) return "a boolean";
        if (node.isIntegralNumber()) return "an integer";
        if (node.isNumber()) return "a decimal";
        if (node.isArray()) return "an array";
        if (node.isObject()) return "an object";
        return node.getNodeType().toString().toLowerCase();
    }

    static boolean absent(JsonNode node) {
        return node == null || node.isNull() || node.isMissingNode();
    }
}
