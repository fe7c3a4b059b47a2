package dev.sluice.gateway.config;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How long the listener waits on a client, and how many connections one client address may
 * hold ({@code sluice.edge.*}, docs/security.md). The timeouts are about the request side
 * only: a response being written (an LLM stream may run for minutes) is never cut by them.
 *
 * @param idleTimeout             a connection with no request in progress: before the first
 *                                byte, while the request line and headers are incomplete, and
 *                                between keep-alive requests. Closed when it passes.
 * @param readTimeout             the longest pause between two reads of a request's body
 *                                (a stalled upload, a chunked body never terminated): 408.
 * @param requestTimeout          the longest a whole request body may take to arrive: 408.
 * @param maxConnectionsPerClient open connections one client address may hold; the next one
 *                                gets a 429 and is closed. 0 means no bound (behind a proxy
 *                                every client shares the proxy's address).
 */
@ConfigurationProperties("sluice.edge")
public record EdgeProperties(@DefaultValue("60s") Duration idleTimeout,
                             @DefaultValue("30s") Duration readTimeout,
                             @DefaultValue("120s") Duration requestTimeout,
                             @DefaultValue("1024") int maxConnectionsPerClient) {
    public EdgeProperties {
        positive("sluice.edge.idle-timeout", idleTimeout);
        positive("sluice.edge.read-timeout", readTimeout);
        positive("sluice.edge.request-timeout", requestTimeout);
        if (requestTimeout.compareTo(readTimeout) < 0) {
            throw new IllegalArgumentException("sluice.edge.request-timeout (" + Checks.show(requestTimeout)
                    + ") must be at least sluice.edge.read-timeout (" + Checks.show(readTimeout) + ")");
        }
        if (maxConnectionsPerClient < 0) {
            throw new IllegalArgumentException("sluice.edge.max-connections-per-client must be 0 (no bound) or more, was "
                    + maxConnectionsPerClient);
        }
    }

    private static void positive(String name, Duration d) {
        Checks.positive(name, d);
        if (d.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException(name + " must be at most 1h, was " + Checks.show(d));
        }
    }
}
