package dev.sluice.gateway.abuse;

/**
 * What a reviewer did with a flag. The three decisions close an open flag; {@code comment}
 * adds a note to a flag in any state and changes nothing else.
 */
public enum ReviewAction {
    DISMISS("dismiss", FlagStatus.DISMISSED),
    CONFIRM_SUSPEND("confirm-suspend", FlagStatus.CONFIRMED),
    CONFIRM_MOVE_TIER("confirm-move-tier", FlagStatus.CONFIRMED),
    COMMENT("comment", null);

    private final String wire;
    private final FlagStatus result;

    ReviewAction(String wire, FlagStatus result) {
        this.wire = wire;
        this.result = result;
    }

    public String wire() {
        return wire;
    }

    /** The status the flag gets; null when the action leaves it as it is. */
    public FlagStatus result() {
        return result;
    }

    public static ReviewAction of(String wire) {
        for (ReviewAction a : values()) if (a.wire.equals(wire)) return a;
        return null;
    }
}
