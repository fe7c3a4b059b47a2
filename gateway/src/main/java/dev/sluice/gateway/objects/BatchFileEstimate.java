package dev.sluice.gateway.objects;

import java.util.Objects;

/**
 * What a batch input file may cost, measured line by line when it was uploaded: the batch made
 * from it is charged this, so its thousands of calls are not admitted as one free request.
 *
 * @param model         the model every line names
 * @param promptTokens  the lines' prompts, summed
 * @param outputTokens  the lines' output limits (written into the lines that had none), summed
 * @param lines         how many requests the file holds
 */
public record BatchFileEstimate(String model, long promptTokens, long outputTokens, long lines) {
    public BatchFileEstimate {
        Objects.requireNonNull(model, "model");
        if (promptTokens < 0 || outputTokens < 0 || lines < 0)
            throw new IllegalArgumentException("negative batch estimate");
    }
}
