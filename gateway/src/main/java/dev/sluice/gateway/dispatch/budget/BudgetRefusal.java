package dev.sluice.gateway.dispatch.budget;

/** Why a provider budget refused a call; when several apply, the one that frees last is named. */
public enum BudgetRefusal {
    /** The upstream answered 429: every replica holds off until the pause ends. */
    PAUSED,
    /** The rolling minute has no room for this call's tokens. */
    TOKENS,
    /** The rolling minute has no room for one more request. */
    REQUESTS,
    /** Every in-flight slot is held. */
    IN_FLIGHT,
    /** The rolling minute has no room for this call's prompt (a provider's input limit, e.g. Anthropic's ITPM). */
    INPUT_TOKENS,
    /** The rolling minute has no room for this call's max output (a provider's output limit, e.g. Anthropic's OTPM). */
    OUTPUT_TOKENS
}
