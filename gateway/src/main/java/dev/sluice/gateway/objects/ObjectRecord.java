package dev.sluice.gateway.objects;

import java.util.Objects;

/**
 * Who created a provider object through Sluice, and for a batch input file what its lines may
 * cost. Every tenant shares the provider account, so this record is the only thing that tells
 * one tenant's file (batch, response, ...) from another's.
 *
 * @param owner    the tenant id
 * @param estimate the file's estimate (batch input files only), else null
 */
public record ObjectRecord(String owner, BatchFileEstimate estimate) {
    private static final String VERSION = "1";

    public ObjectRecord {
        Objects.requireNonNull(owner, "owner");
    }

    public static ObjectRecord ownedBy(String owner) {
        return new ObjectRecord(owner, null);
    }

    /**
     * One line of text, tab-separated, cheap to read on Lettuce's thread. The model (a tenant's
     * string) comes last, so a tab in it cannot shift the other fields.
     */
    public String encode() {
        StringBuilder s = new StringBuilder(64).append(VERSION).append('\t').append(owner);
        if (estimate != null) {
            s.append('\t').append(estimate.promptTokens()).append('\t').append(estimate.outputTokens())
                    .append('\t').append(estimate.lines()).append('\t').append(estimate.model());
        }
        return s.toString();
    }

    /** The record {@link #encode()} wrote; an error for anything else (the caller fails closed). */
    public static ObjectRecord decode(String text) {
        String[] f = text.split("\t", 6);
        if (!VERSION.equals(f[0]) || (f.length != 2 && f.length != 6)) {
            throw new IllegalArgumentException("not an object record: " + text);
        }
        if (f.length == 2) return new ObjectRecord(f[1], null);
        return new ObjectRecord(f[1], new BatchFileEstimate(f[5], Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])));
    }
}
