package dev.sluice.gateway.dispatch.budget;

/**
 * The store's answer to a {@link SliceAsk}.
 *
 * @param admitted    whether the ask's need (and slot) were met
 * @param refusal     when not, the constraint that frees last (as {@link BudgetDecision#refusal})
 * @param waitMs      when not, from now until the need could fit; -1 when it never fits
 * @param granted     the new slice, charged at {@code chargedAtMs} (zero when refused or paused)
 * @param chargedAtMs the slice's stamp: now plus the count delay
 * @param slotsHeld   the slots this replica holds after the call ({@code replica#1..slotsHeld})
 * @param snapshot    the budget after the call, this replica's slice and slots counted as used
 */
public record SliceGrant(
        boolean admitted,
        BudgetRefusal refusal,
        long waitMs,
        Amounts granted,
        long chargedAtMs,
        int slotsHeld,
        BudgetSnapshot snapshot) {}
