package dev.sluice.gateway.tenant;

import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.WindowLimit;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A group of tenants that share caps: its own token windows (each a {@link WindowLimit}, as a
 * tier's) and spend budgets, charged for every request of every member tenant in the same atomic
 * step as the tenant's own ({@code quota/QuotaScope}). Either may be absent: an organisation with
 * neither only groups.
 *
 * @param id      as a tenant id ({@code [a-z0-9][a-z0-9._-]{0,63}})
 * @param name    for people; the id when none was given
 * @param windows the shared windows, by name ({@link #WINDOW_NAME}); empty: none
 * @param spend   the shared spend budgets; {@link SpendBudget#NONE}: none
 */
public record Organisation(String id, String name, List<WindowLimit> windows, SpendBudget spend) {
    /** A window's name: it becomes part of a Redis key and a header's policy name, so no ':' or braces. */
    public static final Pattern WINDOW_NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,31}");

    public Organisation {
        Objects.requireNonNull(id, "id");
        name = name == null || name.isBlank() ? id : name.strip();
        windows = windows == null ? List.of() : List.copyOf(windows);
        spend = spend == null ? SpendBudget.NONE : spend;
        Set<String> seen = new HashSet<>();
        for (WindowLimit w : windows) {
            if (!WINDOW_NAME.matcher(w.name()).matches())
                throw new IllegalArgumentException("window name '" + w.name() + "' must match " + WINDOW_NAME);
            if (!seen.add(w.name())) throw new IllegalArgumentException("duplicate window name '" + w.name() + "'");
        }
    }

    /** Whether it caps anything (else it only groups, and its members are charged only their own caps). */
    public boolean caps() {
        return !windows.isEmpty() || spend.capped();
    }
}
