package dev.sluice.lab.provider;

/**
 * A consistent snapshot of the simulator's counters, taken under its lock.
 * {@code received = admitted + rejected429 + rejected503 + badRequests}; rejected calls are never billed.
 *
 * @param received            generation calls that reached the provider (well-formed or not)
 * @param completed           admitted calls that finished and were billed in full
 * @param cancelled           admitted calls whose client went away; billed prompt + tokens sent
 * @param rejected429Requests part of {@code rejected429} refused on requests per minute
 * @param rejected429Tokens   part of {@code rejected429} refused on tokens per minute (or too large)
 * @param callsWithoutKey     calls that came without an {@code Authorization} header
 * @param maxTokensInWindow   the largest rolling-window token sum seen at any admission
 * @param maxRequestsInWindow the largest rolling-window request count seen at any admission
 * @param requestsInWindow    requests in the rolling window now
 * @param tokensInWindow      tokens in the rolling window now
 */
public record LabStats(
        long received,
        long admitted,
        long completed,
        long cancelled,
        long rejected429,
        long rejected429Requests,
        long rejected429Tokens,
        long rejected503,
        long badRequests,
        long callsWithoutKey,
        long tokensBilled,
        double costUsd,
        int currentInFlight,
        int maxInFlightSeen,
        long maxTokensInWindow,
        long maxRequestsInWindow,
        long requestsInWindow,
        long tokensInWindow,
        LabLimits limits) {}
