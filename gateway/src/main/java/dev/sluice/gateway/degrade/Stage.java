package dev.sluice.gateway.degrade;

/** What the ladder did to a request, in the order a request climbs it. */
public enum Stage {
    PASSED("passed"),
    DOWNGRADED("downgraded"),
    DELAYED("delayed"),
    REJECTED("rejected");

    private final String label;

    Stage(String label) {
        this.label = label;
    }

    /** The metric tag and the word operators see. */
    public String label() {
        return label;
    }
}
