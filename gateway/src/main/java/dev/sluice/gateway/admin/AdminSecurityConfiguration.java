package dev.sluice.gateway.admin;

import dev.sluice.gateway.config.AdminProperties;
import dev.sluice.gateway.quota.QuotaClock;
import java.util.List;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.config.web.server.SecurityWebFiltersOrder;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.ServerAuthenticationEntryPoint;
import org.springframework.security.web.server.authorization.ServerAccessDeniedHandler;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.firewall.ServerWebExchangeFirewall;
import org.springframework.security.web.server.firewall.StrictServerWebExchangeFirewall;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatcher;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatchers;
import reactor.core.publisher.Mono;

/**
 * Spring Security for the admin paths only. {@code /admin/api/**} and the lab provider's
 * controls on the gateway port ({@code /lab/**}: its counters and its reset, which exist only
 * when the lab provider runs) need HTTP Basic with the admin credentials (role ADMIN); a
 * tenant key (Bearer) is not a credential there and gets 401. Everything else ({@code /v1/**},
 * whose tenant auth is the gateway's own filter, {@code /actuator/health} and
 * {@code /actuator/prometheus}) matches no security chain and passes straight through.
 *
 * <p>Why no session and no CSRF token: Basic credentials travel with every request, so there
 * is nothing to keep between requests (no session, no security context saved, no request
 * cache). CSRF abuses credentials a browser attaches on its own; the API's writes instead
 * require a JSON or YAML body (which a cross-site form cannot send, and which a cross-site
 * script can only send after a CORS preflight this API never grants), and any write whose
 * {@code Origin} is another site is refused ({@link AdminRoutes}).
 *
 * <p>Nothing of this runs per request on {@code /v1/**}: the strict firewall is scoped to the
 * admin paths, and security observations are off (they would wrap every request, secured or
 * not, in an observation).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(AdminProperties.class)
public class AdminSecurityConfiguration {
    static final String REALM = "Basic realm=\"sluice-admin\", charset=\"UTF-8\"";

    @Bean
    AdminCredentials adminCredentials(AdminProperties props) {
        return AdminCredentials.from(props);
    }

    /** Also keeps Boot from creating its default user (and logging a second generated password). */
    @Bean
    ReactiveAuthenticationManager adminAuthenticationManager(AdminCredentials credentials) {
        return authentication -> {
            String user = authentication.getName();
            Object password = authentication.getCredentials();
            if (password instanceof String p && credentials.matches(user, p)) {
                return Mono.just(UsernamePasswordAuthenticationToken.authenticated(
                        user, null, List.of(new SimpleGrantedAuthority("ROLE_ADMIN"))));
            }
            return Mono.error(new BadCredentialsException("bad admin credentials"));
        };
    }

    @Bean
    LoginThrottle adminLoginThrottle(AdminProperties props) {
        AdminProperties.Login login = props.login();
        return new LoginThrottle(login.maxFailuresPerAddress(), login.maxFailuresPerUser(), login.window());
    }

    @Bean
    SecurityWebFilterChain adminSecurityChain(
            ServerHttpSecurity http,
            ReactiveAuthenticationManager manager,
            LoginThrottle throttle,
            AdminCredentials credentials,
            QuotaClock clock) {
        ServerAuthenticationEntryPoint entryPoint = (exchange, e) -> {
            var request = exchange.getRequest();
            // A script (the admin UI) asks not to get the browser's own login dialog.
            if (request.getHeaders().getFirst("X-Requested-With") == null) {
                exchange.getResponse().getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, REALM);
            }
            String auth = request.getHeaders().getFirst(HttpHeaders.AUTHORIZATION);
            String message = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)
                    ? "Tenant API keys are not accepted here: the admin API needs the admin credentials (HTTP Basic)."
                    : auth == null
                            ? "Authentication required: HTTP Basic with the admin credentials."
                            : "Wrong admin credentials.";
            return AdminResponses.write(exchange.getResponse(), HttpStatus.UNAUTHORIZED, "unauthorized", message);
        };
        ServerAccessDeniedHandler denied = (exchange, e) -> AdminResponses.write(
                exchange.getResponse(), HttpStatus.FORBIDDEN, "forbidden", "The admin role is required.");
        return http.securityMatcher(adminPaths())
                .authorizeExchange(ex -> ex.pathMatchers("/admin/api", "/admin/api/**", "/lab", "/lab/**")
                        .hasRole("ADMIN")
                        .anyExchange()
                        .permitAll())
                .httpBasic(basic -> basic.authenticationManager(manager).authenticationEntryPoint(entryPoint))
                .exceptionHandling(e -> e.authenticationEntryPoint(entryPoint).accessDeniedHandler(denied))
                .addFilterBefore(
                        new LoginThrottleFilter(throttle, credentials, clock.clock()),
                        SecurityWebFiltersOrder.HTTP_BASIC)
                .securityContextRepository(NoOpServerSecurityContextRepository.getInstance())
                .requestCache(cache -> cache.requestCache(NoOpServerRequestCache.getInstance()))
                .csrf(ServerHttpSecurity.CsrfSpec::disable)
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .logout(ServerHttpSecurity.LogoutSpec::disable)
                .build();
    }

    /**
     * The admin and lab paths, where this chain applies. Spring Security tries it on every request,
     * tenant calls included, and its path matchers build a debug line per pattern each time; a path
     * that cannot match (no "admin" or "lab" in it, in any case, and nothing percent-encoded) is
     * told so at once. Any other path goes to the same matchers as before.
     */
    static ServerWebExchangeMatcher adminPaths() {
        ServerWebExchangeMatcher patterns =
                ServerWebExchangeMatchers.pathMatchers("/admin", "/admin/**", "/lab", "/lab/**");
        return exchange -> mayBeAdminPath(exchange.getRequest().getPath().value())
                ? patterns.matches(exchange)
                : ServerWebExchangeMatcher.MatchResult.notMatch();
    }

    /** False only for a raw path that no decoding can turn into one containing "admin" or "lab". */
    static boolean mayBeAdminPath(String rawPath) {
        return rawPath.indexOf('%') >= 0 || containsIgnoreCase(rawPath, "admin") || containsIgnoreCase(rawPath, "lab");
    }

    private static boolean containsIgnoreCase(String s, String word) {
        for (int i = 0; i + word.length() <= s.length(); i++) {
            if (s.regionMatches(true, i, word, 0, word.length())) return true;
        }
        return false;
    }

    /** The strict firewall where security applies; elsewhere the exchange goes on untouched. */
    @Bean
    ServerWebExchangeFirewall adminFirewall() {
        StrictServerWebExchangeFirewall strict = new StrictServerWebExchangeFirewall();
        return exchange -> exchange.getRequest().getPath().value().startsWith("/admin")
                ? strict.getFirewalledExchange(exchange)
                : Mono.just(exchange);
    }

    @Bean
    SecurityObservationSettings securityObservationSettings() {
        return SecurityObservationSettings.noObservations();
    }
}
