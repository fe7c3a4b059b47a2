package dev.sluice.gateway.usage;

import dev.sluice.gateway.api.RequestAttribute;

/**
 * Told how a request's charge was settled, for a charge that follows it (the draft's in shadow):
 * once, with the tokens and the cost the request was settled at, or that it was refunded whole
 * (it never reached a provider). A request refused before any charge tells nothing.
 */
public interface SettleListener {
    /** Where a stage before the settle leaves its listener. */
    RequestAttribute<SettleListener> ATTRIBUTE = new RequestAttribute<>("sluice.settleListener");

    void settled(long tokens, long costMicros);

    void refunded();
}
