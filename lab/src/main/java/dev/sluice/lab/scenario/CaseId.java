package dev.sluice.lab.scenario;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Seed 000's five ways of sending a book's pages to the provider. */
public enum CaseId {
    CASE1("case1", "One page after another per user"),
    CASE2("case2", "All pages at once, nothing in front"),
    CASE3("case3", "A token-bucket limiter in front"),
    CASE4("case4", "The gateway's queue (Sluice)"),
    CASE5("case5", "No queue but a bounded HTTP connection pool");

    private final String id;
    private final String title;

    CaseId(String id, String title) {
        this.id = id;
        this.title = title;
    }

    public String id() {
        return id;
    }

    public String title() {
        return title;
    }

    /** {@code case1}…{@code case5} (case-insensitive); a clear error for anything else. */
    public static CaseId of(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (CaseId c : values()) {
            if (c.id.equals(n)) return c;
        }
        throw new IllegalArgumentException("unknown case '" + name + "': expected one of " + names());
    }

    public static String names() {
        return Arrays.stream(values()).map(CaseId::id).collect(Collectors.joining(", "));
    }
}
