package dev.sluice.gateway.dispatch.budget;

import java.util.List;

/**
 * What a replica asks of a shared provider budget in one atomic store call
 * ({@link ProviderBudgetStore#lease}): apply its queued settlements, give back the unspent rest
 * of its previous slice, keep the in-flight slots its calls use, and take a new slice.
 *
 * @param replica     names this replica's slots in the store ({@code replica#1..n})
 * @param giveBack    the previous slice's unspent rest, charged at {@code giveBackAtMs}
 * @param need        what the call waiting now needs (zero for a renewal): all of it, or nothing is
 *                    granted and the answer says why and for how long
 * @param needSlot    whether the waiting call needs a free in-flight slot
 * @param want        how much to take if room is plentiful (at least {@code need}); where room is
 *                    scarce (less than twice this) only {@code need} is granted, so idle slices do not
 *                    starve other replicas
 * @param slotsInUse  this replica's calls in flight: their slots stay held whatever the limits
 * @param slotsHeld   the slots this replica holds now ({@code replica#1..slotsHeld})
 * @param wantSlots   the slots to hold after this call, in use and spare
 * @param slotTtlMs   how long the held slots last unless renewed (a replica that dies frees them then)
 * @param renewSlots  whether the slots kept are renewed to {@code slotTtlMs} from now (not on every call:
 *                    a replica with hundreds of calls in flight would rewrite them all every flush)
 */
public record SliceAsk(
        String replica,
        List<BudgetSettlement> settlements,
        Amounts giveBack,
        long giveBackAtMs,
        Amounts need,
        boolean needSlot,
        Amounts want,
        int slotsInUse,
        int slotsHeld,
        int wantSlots,
        long slotTtlMs,
        boolean renewSlots) {
    public SliceAsk {
        if (replica == null || replica.isEmpty()) throw new IllegalArgumentException("replica must be named");
        settlements = List.copyOf(settlements);
        want = want.max(need);
        if (slotsInUse < 0 || slotsHeld < 0 || wantSlots < 0) {
            throw new IllegalArgumentException("slot counts must not be negative: in use " + slotsInUse + ", held "
                    + slotsHeld + ", wanted " + wantSlots);
        }
        if (slotTtlMs < 1) throw new IllegalArgumentException("slotTtlMs must be positive, was " + slotTtlMs);
    }

    /** The slot id of this replica's {@code i}-th held slot (1-based) in the lease set. */
    public static String slotId(String replica, int i) {
        return replica + "#" + i;
    }
}
