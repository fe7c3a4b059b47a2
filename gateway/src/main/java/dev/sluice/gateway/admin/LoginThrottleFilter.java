package dev.sluice.gateway.admin;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Runs in the admin security chain before HTTP Basic: an attempt the {@link LoginThrottle}
 * refuses gets a 429 with Retry-After before its password is looked at; otherwise the
 * password is checked here too (the same constant-time comparison Basic does next) only to
 * count the outcome.
 */
final class LoginThrottleFilter implements WebFilter {
    private static final Logger log = LoggerFactory.getLogger(LoginThrottleFilter.class);

    private final LoginThrottle throttle;
    private final AdminCredentials credentials;
    private final Clock clock;

    LoginThrottleFilter(LoginThrottle throttle, AdminCredentials credentials, Clock clock) {
        this.throttle = throttle;
        this.credentials = credentials;
        this.clock = clock;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String[] basic = basic(exchange.getRequest().getHeaders().getFirst(HttpHeaders.AUTHORIZATION));
        if (basic == null) return chain.filter(exchange); // no login attempted: the entry point answers 401
        String address = address(exchange);
        var refused = throttle.refusedFor(address, basic[0], clock.instant());
        if (refused.isPresent()) {
            long seconds = Math.max(1, ceilSeconds(refused.get()));
            exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
            return AdminResponses.write(
                    exchange.getResponse(),
                    HttpStatus.TOO_MANY_REQUESTS,
                    "too_many_failed_logins",
                    "Too many failed admin logins from this address or for this user; try again in " + seconds + " s.");
        }
        if (credentials.matches(basic[0], basic[1])) {
            throttle.succeeded(address);
        } else {
            throttle.failed(address, basic[0], clock.instant());
            log.warn("Failed admin login for user '{}' from {}", printable(basic[0]), address);
        }
        return chain.filter(exchange);
    }

    /** {user, password} from a Basic header; {"", ""}-like pairs for a malformed one, null when there is none. */
    static String[] basic(String header) {
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) return null;
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return new String[] {"", ""};
        }
        int colon = decoded.indexOf(':');
        return colon < 0
                ? new String[] {decoded, ""}
                : new String[] {decoded.substring(0, colon), decoded.substring(colon + 1)};
    }

    private static String address(ServerWebExchange exchange) {
        InetSocketAddress remote = exchange.getRequest().getRemoteAddress();
        if (remote == null) return "unknown";
        return remote.getAddress() != null ? remote.getAddress().getHostAddress() : remote.getHostString();
    }

    private static long ceilSeconds(Duration d) {
        long ms = d.toMillis();
        return ms / 1000 + (ms % 1000 == 0 ? 0 : 1);
    }

    private static String printable(String user) {
        String s = user.length() > 64 ? user.substring(0, 64) + "…" : user;
        return s.replaceAll("[^\\x20-\\x7e]", "?");
    }
}
