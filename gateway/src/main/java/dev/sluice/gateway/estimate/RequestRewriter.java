package dev.sluice.gateway.estimate;

import static dev.sluice.gateway.estimate.JsonBodies.JSON;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

/**
 * Edits a request body on its way upstream by splicing bytes at the offsets a streaming parser
 * reports, so every other byte (field order, number formatting, escapes, whitespace) reaches the
 * provider exactly as the client sent it, and a large body is not rebuilt as a tree.
 */
public final class RequestRewriter {
    private static final byte[] TRUE = bytes("true");
    private static final byte[] INCLUDE_USAGE_OBJECT = bytes("{\"include_usage\":true}");

    /**
     * Sets {@code stream_options.include_usage: true} so a stream ends with its usage, which the
     * gateway needs to reconcile. Only for streamed chat/completions requests: OpenAI refuses
     * stream_options without {@code stream: true}, and the Responses API reports usage anyway.
     */
    public byte[] withIncludeUsage(byte[] body) {
        Objects.requireNonNull(body, "body");
        List<Edit> edits = new ArrayList<>();
        try (JsonParser p = openObject(body)) {
            int fields = 0;
            long lastValueEnd = p.currentLocation().getByteOffset(); // just after '{'
            boolean found = false;
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                fields++;
                boolean options = p.currentName().equals("stream_options");
                JsonToken value = p.nextToken();
                if (options && value == JsonToken.START_OBJECT) {
                    found = true;
                    setIncludeUsage(p, edits);
                } else if (options) {
                    found = true;
                    long start = p.currentTokenLocation().getByteOffset();
                    edits.add(new Edit(start, endOfValue(p), INCLUDE_USAGE_OBJECT));
                } else {
                    p.skipChildren();
                }
                lastValueEnd = endOfValue(p);
            }
            if (!found) {
                edits.add(new Edit(
                        lastValueEnd,
                        lastValueEnd,
                        bytes((fields > 0 ? "," : "") + "\"stream_options\":{\"include_usage\":true}")));
            }
        } catch (JacksonException e) {
            throw JsonBodies.notJson(e.getLocation());
        }
        return apply(body, edits);
    }

    /**
     * Adds {@code "field": cap} when the body sets no output limit under {@code field} (absent or
     * null), so the reservation made for the request's default output is a bound the provider
     * keeps, not a guess. A body that sets the field is returned as it is.
     */
    public byte[] withOutputCap(byte[] body, String field, long cap) {
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(field, "field");
        if (cap < 1) throw new IllegalArgumentException("cap < 1");
        List<Edit> edits = new ArrayList<>();
        try (JsonParser p = openObject(body)) {
            long lastValueEnd = p.currentLocation().getByteOffset();
            int fields = 0;
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                fields++;
                boolean isField = p.currentName().equals(field);
                JsonToken value = p.nextToken();
                long start = p.currentTokenLocation().getByteOffset();
                p.skipChildren();
                long end = endOfValue(p);
                // A null limit is no limit: replace it, as every duplicate (parsers disagree on which wins).
                if (isField && value != JsonToken.VALUE_NULL) return body;
                if (isField) edits.add(new Edit(start, end, bytes(Long.toString(cap))));
                lastValueEnd = end;
            }
            if (edits.isEmpty()) {
                edits.add(new Edit(
                        lastValueEnd, lastValueEnd, bytes((fields > 0 ? "," : "") + "\"" + field + "\":" + cap)));
            }
        } catch (JacksonException e) {
            throw JsonBodies.notJson(e.getLocation());
        }
        return apply(body, edits);
    }

    /** Replaces the model (the downgrade stage), or adds it when the body has none. */
    public byte[] withModel(byte[] body, String model) {
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(model, "model");
        byte[] quoted = JSON.writeValueAsBytes(model);
        List<Edit> edits = new ArrayList<>();
        try (JsonParser p = openObject(body)) {
            long afterBrace = p.currentLocation().getByteOffset();
            int fields = 0;
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                fields++;
                boolean isModel = p.currentName().equals("model");
                p.nextToken();
                long start = p.currentTokenLocation().getByteOffset();
                p.skipChildren();
                // Every occurrence: parsers disagree on which duplicate wins.
                if (isModel) edits.add(new Edit(start, endOfValue(p), quoted));
            }
            if (edits.isEmpty()) {
                byte[] field =
                        bytes("\"model\":" + new String(quoted, StandardCharsets.UTF_8) + (fields > 0 ? "," : ""));
                edits.add(new Edit(afterBrace, afterBrace, field));
            }
        } catch (JacksonException e) {
            throw JsonBodies.notJson(e.getLocation());
        }
        return apply(body, edits);
    }

    /** The parser is on the START_OBJECT of stream_options. */
    private static void setIncludeUsage(JsonParser p, List<Edit> edits) {
        int fields = 0;
        long lastValueEnd = p.currentLocation().getByteOffset();
        boolean found = false;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            fields++;
            boolean includeUsage = p.currentName().equals("include_usage");
            p.nextToken();
            long start = p.currentTokenLocation().getByteOffset();
            p.skipChildren();
            lastValueEnd = endOfValue(p);
            if (includeUsage) {
                found = true;
                edits.add(new Edit(start, lastValueEnd, TRUE));
            }
        }
        if (!found) {
            edits.add(new Edit(lastValueEnd, lastValueEnd, bytes((fields > 0 ? "," : "") + "\"include_usage\":true")));
        }
    }

    private static JsonParser openObject(byte[] body) {
        JsonParser p = JSON.createParser(body);
        if (p.nextToken() != JsonToken.START_OBJECT) {
            p.close();
            throw new InvalidRequestException("The request body must be a JSON object.", null);
        }
        return p;
    }

    /** Byte offset just past the current value; strings are parsed lazily, so finish them first. */
    private static long endOfValue(JsonParser p) {
        p.finishToken();
        return p.currentLocation().getByteOffset();
    }

    private record Edit(long start, long end, byte[] replacement) {}

    private static byte[] apply(byte[] body, List<Edit> edits) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 48);
        int at = 0;
        for (Edit edit : edits) { // found in document order, so already sorted
            out.write(body, at, (int) edit.start() - at);
            out.writeBytes(edit.replacement());
            at = (int) edit.end();
        }
        out.write(body, at, body.length - at);
        return out.toByteArray();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
