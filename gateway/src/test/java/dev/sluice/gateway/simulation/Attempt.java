package dev.sluice.gateway.simulation;

import dev.sluice.gateway.usage.Usage;

/**
 * One request to the gateway (a tenant's try at a page: a client retry is another attempt), and
 * everything the run learned about it, from the client, the gateway's path and the providers.
 * Single-threaded like the whole run.
 */
final class Attempt {
    final String id;
    final String tenant;
    final int group;
    final int replica;
    final long promptTokens; // as the gateway's tokenizer counts the prompt
    final long maxTokens; // written into the request (the tier's default where the tenant names none)
    final boolean batch;
    final boolean noDowngrade;
    final long maxWaitMs;
    final long sentAtMs; // virtual time, as every time here

    // The answer.
    int commits; // answers written: one, exactly, unless the client left first
    int status;
    boolean neverSent; // the gateway answered without the provider (busy, refused)
    String answer = ""; // what kind of answer: served, quota-429, busy:<why>, 502, ...
    long retryAfterMs = -1;
    Usage usage; // the usage the tenant's answer carried
    long answeredAtMs = -1;
    boolean ended; // the request's path ended (answered, failed or cancelled) and its settle ran
    boolean cancelled; // the client hung up before the answer
    boolean cancelledInLine; // ... while its job waited in a dispatch line (or was being handed over)
    String escaped; // an error that escaped the request path (the gateway's 500)

    // The charge.
    boolean admitted; // the quota charged an estimate
    long reserved; // the estimate charged
    long charged; // what the settle made of it (the estimate plus its correction), 0 when refunded
    long chargedRequests;
    int settles; // settle or refund calls that changed the reservation

    // What the providers saw of it.
    int processed; // tries that reached a provider and that it took on (not a 429 or 503 push-back)
    int pushedBack; // tries a provider answered 429 or 503

    // The door's promise, for its first placement.
    long placedAtMs = -1;
    long doorEstimateMs = -1;
    boolean doorAccepted;
    String doorKey;
    long leasedAtMs = -1;
    String placeOutcome; // lease, busy:<why>, spilled, cancelled
    String lastLeaseKey; // the budget of its last lease
    long lastLeasedAtMs = -1;
    boolean inLine; // a job of it waits in a dispatch line now

    Attempt(
            String id,
            String tenant,
            int group,
            int replica,
            long promptTokens,
            long maxTokens,
            boolean batch,
            boolean noDowngrade,
            long maxWaitMs,
            long sentAtMs) {
        this.id = id;
        this.tenant = tenant;
        this.group = group;
        this.replica = replica;
        this.promptTokens = promptTokens;
        this.maxTokens = maxTokens;
        this.batch = batch;
        this.noDowngrade = noDowngrade;
        this.maxWaitMs = maxWaitMs;
        this.sentAtMs = sentAtMs;
    }

    long estimate() {
        return promptTokens + maxTokens;
    }

    /**
     * What the tenant should have been charged, by the contract and what the providers saw:
     * nothing for a request that no provider took on (cancelled before it was sent, no connection
     * made, pushed back only) and nothing for one answered with a refusal (503 busy, 400: "not
     * sent or charged", whatever its earlier tries met); the usage of the answer it got; the prompt
     * for a failure after a provider had it (it may have processed it); the reservation for a call
     * cut off without usage (the provider may have written up to the cap).
     */
    long expectedTokens() {
        if (!due()) return 0;
        if (usage != null) return usage.totalTokens();
        if (cancelled) return Math.max(reserved, 0);
        return promptTokens;
    }

    long expectedRequests() {
        return due() ? 1 : 0;
    }

    /** Whether anything is due: admitted, taken on by a provider, and not answered with a refusal ("not sent or charged"). */
    private boolean due() {
        return admitted && processed > 0 && !(commits > 0 && neverSent);
    }

    /** One line, for a report. */
    String story() {
        return String.format(
                "%s (%s, replica %d, sent at %.3f s, prompt %d + max %d, max wait %d ms): %s%s%s, "
                        + "taken on by a provider %d time(s), pushed back %d, reserved %d, charged %d tokens and %d request(s) in %d settle(s)",
                id,
                tenant,
                replica,
                sentAtMs / 1000.0,
                promptTokens,
                maxTokens,
                maxWaitMs,
                answer,
                cancelled
                        ? (cancelledInLine ? " (the client left while it waited in line)" : " (the client left)")
                        : "",
                usage == null ? "" : " with usage " + usage.promptTokens() + "+" + usage.completionTokens(),
                processed,
                pushedBack,
                reserved,
                charged,
                chargedRequests,
                settles);
    }
}
