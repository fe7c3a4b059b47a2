package dev.sluice.lab.provider;

/** The simulator's answer to a call: admitted, or refused the way a real provider refuses. */
public sealed interface Admission permits Admission.Admitted, Admission.Rejected {

    /** Rate-limit numbers after this decision, for the response headers. */
    RateLimitSnapshot rateLimits();

    record Admitted(LabCall call, RateLimitSnapshot rateLimits) implements Admission {}

    /**
     * @param retryAfterMillis when this call would be admitted if nothing else arrived meanwhile;
     *                         -1 when it never can (a request larger than the token limit)
     * @param limit            the limit that refused it (in-flight cap, RPM, TPM, ITPM or OTPM)
     * @param used             how much of that limit was in use
     * @param requested        what this call asked for (1 call, 1 request, or its tokens)
     */
    record Rejected(
            Reason reason, long retryAfterMillis, long limit, long used, long requested, RateLimitSnapshot rateLimits)
            implements Admission {

        public int status() {
            return reason == Reason.OVERLOADED ? 503 : 429;
        }
    }

    enum Reason {
        /** In flight at the cap: 503. */
        OVERLOADED,
        /** Rolling request window full: 429. */
        REQUESTS_PER_MINUTE,
        /** Rolling token window full: 429. */
        TOKENS_PER_MINUTE,
        /** Rolling input (prompt) token window full: 429. */
        INPUT_TOKENS_PER_MINUTE,
        /** Rolling output token window full (output reserved from max tokens): 429. */
        OUTPUT_TOKENS_PER_MINUTE,
        /** The call alone exceeds a token limit; retrying cannot help: 429 without a retry time. */
        REQUEST_TOO_LARGE
    }
}
