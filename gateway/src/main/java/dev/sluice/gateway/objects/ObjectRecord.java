package dev.sluice.gateway.objects;

import java.util.Objects;

/**
 * Who created a provider object through Sluice, and for a batch input file what its lines may
 * cost. Every tenant shares the provider account, so this record is the only thing that tells
 * one tenant's file (batch, response, ...) from another's.
 *
 * @param owner         the tenant id
 * @param estimate      the file's estimate (batch input files only), else null
 * @param contextTokens for a stored response, its input and output tokens: what a call that
 *                      continues it ({@code previous_response_id}) reads again as input, unseen in
 *                      its own body; 0 when not known (yet)
 */
public record ObjectRecord(String owner, BatchFileEstimate estimate, long contextTokens) {
    private static final String VERSION = "1";

    public ObjectRecord {
        Objects.requireNonNull(owner, "owner");
        if (contextTokens < 0) throw new IllegalArgumentException("contextTokens < 0");
    }

    public ObjectRecord(String owner, BatchFileEstimate estimate) {
        this(owner, estimate, 0);
    }

    public static ObjectRecord ownedBy(String owner) {
        return new ObjectRecord(owner, null, 0);
    }

    /** The same owner's record of a response that holds {@code tokens} of context. */
    public ObjectRecord withContext(long tokens) {
        return new ObjectRecord(owner, estimate, Math.max(0, tokens));
    }

    /**
     * One line of text, tab-separated, cheap to read on Lettuce's thread. The model (a tenant's
     * string) comes last, so a tab in it cannot shift the other fields.
     */
    public String encode() {
        StringBuilder s = new StringBuilder(64).append(VERSION).append('\t').append(owner);
        if (estimate == null && contextTokens > 0)
            return s.append('\t').append(contextTokens).toString();
        if (estimate != null) {
            s.append('\t')
                    .append(estimate.promptTokens())
                    .append('\t')
                    .append(estimate.outputTokens())
                    .append('\t')
                    .append(estimate.lines())
                    .append('\t')
                    .append(estimate.model());
        }
        return s.toString();
    }

    /** The record {@link #encode()} wrote; an error for anything else (the caller fails closed). */
    public static ObjectRecord decode(String text) {
        String[] f = text.split("\t", 6);
        if (!VERSION.equals(f[0]) || (f.length != 2 && f.length != 3 && f.length != 6)) {
            throw new IllegalArgumentException("not an object record: " + text);
        }
        if (f.length == 2) return new ObjectRecord(f[1], null);
        if (f.length == 3) return new ObjectRecord(f[1], null, Long.parseLong(f[2]));
        return new ObjectRecord(
                f[1], new BatchFileEstimate(f[5], Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])));
    }
}
