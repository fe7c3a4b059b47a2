package dev.sluice.gateway.simulation;

import dev.sluice.gateway.dispatch.queue.GatewayBusyException;

/**
 * Which of {@link GatewayBusyException}'s factories made a refusal, read from its text (the
 * exception carries no kind; its texts are one per factory): at the door, or after the door
 * let the job in.
 */
enum BusyKind {
    DOOR_WAIT("The provider is busy: the estimated wait", true),
    DOOR_TOO_LARGE("This request is larger than the provider admits", true),
    QUEUE_FULL("The gateway's queue is full.", true),
    PUSHED_OUT("The gateway's queue is full and this tenant holds the most of it", false),
    WAITED_TOO_LONG("The request waited its whole", false),
    CANNOT_MAKE_IT("The provider is busy: this request cannot be sent within", false),
    /** Admitted, then its place given to a turn owed earlier (the burst, or a replica's review): told at once, still not started. */
    GAVE_WAY("The provider is busy: this request's place went to", false),
    /** Admitted within the door's burst span on a view other replicas' sends of the same moment had filled: told at once. */
    ROOM_TAKEN("The provider is busy: the room this request was admitted to", false),
    SHUTTING_DOWN("This gateway replica is shutting down", false),
    OVERLOADED("The provider is overloaded and asked to wait", false),
    FAILING("The providers for this model are failing", false),
    PUSHED_BACK("The provider is pushing back", false),
    OTHER("", false);

    final String prefix;
    /** Said at the door: the job never waited in line. */
    final boolean atTheDoor;

    BusyKind(String prefix, boolean atTheDoor) {
        this.prefix = prefix;
        this.atTheDoor = atTheDoor;
    }

    /**
     * Of the misses the promise check counts ({@code "busy:KIND"}, or {@code "late"}), those told
     * only after a wait: the caller paid the wait and got nothing. Gave-way and room-taken are
     * told at once, before the caller has waited.
     */
    static boolean brokenAfterAWait(String missKind) {
        return missKind.equals("late")
                || missKind.equals("busy:" + WAITED_TOO_LONG)
                || missKind.equals("busy:" + CANNOT_MAKE_IT)
                || missKind.equals("busy:" + PUSHED_OUT);
    }

    static BusyKind of(GatewayBusyException e) {
        String m = e.getMessage() == null ? "" : e.getMessage();
        // The longer texts first: PUSHED_OUT starts like QUEUE_FULL.
        if (m.startsWith(PUSHED_OUT.prefix)) return PUSHED_OUT;
        for (BusyKind k : values()) if (k != OTHER && m.startsWith(k.prefix)) return k;
        return OTHER;
    }
}
