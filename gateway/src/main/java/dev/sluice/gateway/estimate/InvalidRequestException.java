package dev.sluice.gateway.estimate;

/**
 * A request body Sluice cannot estimate, reported to the client as a 400
 * {@code invalid_request_error}. The message is written for the client, in OpenAI's wording where
 * OpenAI has one.
 */
public class InvalidRequestException extends RuntimeException {
    private final String param;

    public InvalidRequestException(String message, String param) {
        super(message, null, false, false);
        this.param = param;
    }

    /** The offending field (e.g. {@code max_tokens}, {@code messages[2].content}), or null. */
    public String param() {
        return param;
    }
}
