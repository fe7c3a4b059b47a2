package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatcher;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatchers;

class AdminPathsTest {
    private static final ServerWebExchangeMatcher PATTERNS =
            ServerWebExchangeMatchers.pathMatchers("/admin", "/admin/**", "/lab", "/lab/**");

    /** The shortcut never says "not admin" of a path the admin chain's patterns match: it only skips the patterns. */
    @Test
    void theAdminChainAppliesExactlyWhereItsPatternsSay() {
        String[] parts = {
            "/",
            "admin",
            "ADMIN",
            "lab",
            "Lab",
            "api",
            "v1",
            "chat",
            "%61dmin",
            "%2F",
            ";x=1",
            ".",
            "..",
            "//",
            "ad",
            "min",
            "l",
            "ab",
            "?q=admin"
        };
        Random random = new Random(16);
        int matched = 0;
        for (int i = 0; i < 20_000; i++) {
            StringBuilder path = new StringBuilder("/");
            int n = random.nextInt(5);
            for (int k = 0; k < n; k++) path.append(parts[random.nextInt(parts.length)]);
            String target = path.toString();
            MockServerWebExchange exchange;
            try {
                exchange = MockServerWebExchange.from(
                        MockServerHttpRequest.get(target).build());
            } catch (IllegalArgumentException | IllegalStateException notAUri) {
                continue;
            }
            boolean expected = PATTERNS.matches(exchange).block().isMatch();
            if (expected) matched++;
            assertThat(AdminSecurityConfiguration.adminPaths()
                            .matches(exchange)
                            .block()
                            .isMatch())
                    .as(target)
                    .isEqualTo(expected);
        }
        assertThat(matched).isGreaterThan(500);
    }

    @Test
    void tenantPathsSkipThePatterns() {
        assertThat(AdminSecurityConfiguration.mayBeAdminPath("/v1/chat/completions"))
                .isFalse();
        assertThat(AdminSecurityConfiguration.mayBeAdminPath("/v1/models")).isFalse();
        assertThat(AdminSecurityConfiguration.mayBeAdminPath("/admin/api/tenants"))
                .isTrue();
        assertThat(AdminSecurityConfiguration.mayBeAdminPath("/%61dmin")).isTrue();
    }
}
