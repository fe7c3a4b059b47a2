package dev.sluice.gateway.dispatch.budget;

/**
 * What {@code dispatch.SimulationSeams} reads of the budget package that is not public, reached from
 * this test class in the same package, so main code needs no accessor.
 */
public final class BudgetSeams {
    private BudgetSeams() {}

    /** Slots this replica's slice of {@code key} holds in the shared budget; 0 without a slice. */
    public static int sliceSlotsHeld(ReplicaLeases leases, String key) {
        ReplicaSlice s = leases.sliceOf(key);
        return s == null ? 0 : s.held();
    }
}
