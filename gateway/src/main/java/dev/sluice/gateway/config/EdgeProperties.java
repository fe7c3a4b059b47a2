package dev.sluice.gateway.config;

import jakarta.validation.constraints.PositiveOrZero;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

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
@Validated
@NotLessThan(value = "requestTimeout", other = "readTimeout")
public record EdgeProperties(
        @DurationMin(nanos = 0, inclusive = false) @DurationMax(hours = 1) @DefaultValue("60s")
        Duration idleTimeout,

        @DurationMin(nanos = 0, inclusive = false) @DurationMax(hours = 1) @DefaultValue("30s")
        Duration readTimeout,

        @DurationMin(nanos = 0, inclusive = false) @DurationMax(hours = 1) @DefaultValue("120s")
        Duration requestTimeout,

        @PositiveOrZero @DefaultValue("1024") int maxConnectionsPerClient) {}
