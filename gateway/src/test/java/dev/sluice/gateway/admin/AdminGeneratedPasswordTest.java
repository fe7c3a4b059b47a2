package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.GatewayTest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.web.reactive.server.WebTestClient;

/** Without SLUICE_ADMIN_PASSWORD a password is generated, logged once at WARN, and it works. */
@ExtendWith(OutputCaptureExtension.class)
@GatewayTest(properties = {"sluice.admin.password=", "sluice.abuse.tick=7s", FakeUpstream.NO_UPSTREAM_CALLS})
class AdminGeneratedPasswordTest {
    @Autowired
    WebTestClient web;

    @Autowired
    AdminCredentials credentials;

    @Test
    void theGeneratedPasswordIsPrintedOnceAndLetsTheAdminIn(CapturedOutput output) {
        assertThat(credentials.generated()).isTrue();
        Matcher m = Pattern.compile("WARN .*generated password (\\S+) ").matcher(output.getAll());
        assertThat(m.find()).as("the password is logged at WARN").isTrue();
        String password = m.group(1);
        assertThat(m.find()).as("and only once").isFalse();
        assertThat(output.getAll())
                .doesNotContain("Using generated security password"); // Boot's own default user is off
        web.get()
                .uri("/admin/api/tiers")
                .headers(h -> h.setBasicAuth("admin", password))
                .exchange()
                .expectStatus()
                .isOk();
        web.get()
                .uri("/admin/api/tiers")
                .headers(h -> h.setBasicAuth("admin", password + "x"))
                .exchange()
                .expectStatus()
                .isUnauthorized();
    }
}
