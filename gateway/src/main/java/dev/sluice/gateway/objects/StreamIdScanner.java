package dev.sluice.gateway.objects;

import static dev.sluice.gateway.objects.ObjectJson.JSON;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import tools.jackson.core.JacksonException;

/**
 * Finds the object id of a streamed create (SSE) in the first event that carries one, holding
 * back only the bytes before it: the id is claimed before the client sees it, and the rest of
 * the stream then passes untouched. Pure; one per stream.
 */
public final class StreamIdScanner {
    /** A stream that names no id within this much is not one whose id can be claimed. */
    public static final int MAX_HELD = 256 * 1024;

    private final ByteArrayOutputStream held = new ByteArrayOutputStream();
    private int scanned;
    private String id;

    /** Holds {@code chunk}; the id once an event carrying one is complete, else null. */
    public String feed(byte[] chunk) {
        if (id != null) throw new IllegalStateException("already found");
        held.writeBytes(chunk);
        byte[] all = held.toByteArray();
        int lineStart = scanned;
        for (int i = scanned; i < all.length; i++) {
            if (all[i] != '\n') continue;
            String line = new String(all, lineStart, i - lineStart, StandardCharsets.UTF_8).strip();
            lineStart = i + 1;
            scanned = lineStart;
            if (!line.startsWith("data:")) continue;
            String data = line.substring(5).strip();
            if (data.isEmpty() || data.equals("[DONE]")) continue;
            try {
                id = ObjectRules.streamedId(JSON.readTree(data));
            } catch (JacksonException e) {
                continue; // not JSON: not an event with an id
            }
            if (id != null) return id;
        }
        if (all.length > MAX_HELD) throw new ObjectRules.UnexpectedAnswer("The provider's stream names no object id.");
        return null;
    }

    /** Everything held so far, handed on once (the id found, or the stream ended without one). */
    public byte[] release() {
        byte[] out = held.toByteArray();
        held.reset();
        return out;
    }

    public boolean found() {
        return id != null;
    }

    /** The id found, or null. */
    public String id() {
        return id;
    }
}
