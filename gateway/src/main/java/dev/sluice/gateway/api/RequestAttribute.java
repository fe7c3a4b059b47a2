package dev.sluice.gateway.api;

import java.util.Objects;
import org.springframework.web.server.ServerWebExchange;

/**
 * A typed key for one piece of per-request state that a stage leaves on the exchange for the
 * stages after it. Readers never cast and never spell the attribute's name; each key is declared
 * once, beside the type it holds (see {@link SluiceAttributes} for the list), so no capability
 * imports another only to name its state.
 */
public record RequestAttribute<T>(String name) {
    public RequestAttribute {
        Objects.requireNonNull(name, "name");
    }

    /** The value, or null when no stage set it on this exchange. */
    public T get(ServerWebExchange exchange) {
        return exchange.getAttribute(name);
    }

    public void set(ServerWebExchange exchange, T value) {
        exchange.getAttributes().put(name, value);
    }
}
