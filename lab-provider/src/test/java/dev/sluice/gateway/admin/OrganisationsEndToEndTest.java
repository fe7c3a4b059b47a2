package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.gateway.tenant.OrganisationStore;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.GatewayTest;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Organisations and keys' own caps in a real browser (issue 27 item 5): {@code
 * admin-ui/e2e/organisations-e2e.mjs} drives Debian's Chromium through playwright-core: an organisation
 * with a shared minute window and a day budget created from the page, two tenants added, their /v1 calls
 * (served by the built-in lab provider) shown as the shared bars and the 30-day chart, the membership on
 * the Tenants page, a key's cap edited, the delete refused while it has members, then done. Skipped,
 * saying why, where Chromium or admin-ui's node_modules are missing (under CI it fails instead), as
 * {@code AdminUiEndToEndTest}.
 */
@GatewayTest(
        properties = {
            "sluice.admin.user=org-ops",
            "sluice.admin.password=org password 27",
            "sluice.abuse.sampler.enabled=false"
        })
class OrganisationsEndToEndTest {
    static final Path ADMIN_UI = Path.of("..", "admin-ui").toAbsolutePath().normalize();

    @LocalServerPort
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    OrganisationStore organisations;

    @Test
    void anOperatorGroupsTwoTenantsSeesTheirSpendCapsAKeyAndDeletesTheOrganisation() throws Exception {
        String chromium = System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium");
        Path script = ADMIN_UI.resolve("e2e/organisations-e2e.mjs");
        Path driver = ADMIN_UI.resolve("node_modules/playwright-core");
        List<String> missing = new ArrayList<>();
        if (!new File(chromium).canExecute()) missing.add(chromium + " (apt-get install -y chromium)");
        if (!Files.isDirectory(driver)) missing.add(driver + " (npm ci in admin-ui/)");
        if (!Files.isRegularFile(script)) missing.add(script.toString());
        if (!missing.isEmpty()) {
            String why = "The organisations end-to-end test needs " + String.join(" and ", missing);
            if (System.getenv("CI") != null) throw new AssertionError(why + "; CI must run it.");
            assumeTrue(false, why + "; skipped.");
        }
        tenants.create(new Tenant("org-web", "free", false)).block(Duration.ofSeconds(5));
        tenants.create(new Tenant("org-batch", "free", false)).block(Duration.ofSeconds(5));

        Path shots = Path.of(System.getProperty("sluice.e2e.screenshots", "target/screenshots"))
                .toAbsolutePath()
                .normalize();
        Files.createDirectories(shots);
        Path out = Files.createTempFile("organisations-e2e", ".log");
        ProcessBuilder pb = new ProcessBuilder("node", script.toString())
                .directory(ADMIN_UI.toFile())
                .redirectErrorStream(true)
                .redirectOutput(out.toFile());
        Map<String, String> env = pb.environment();
        env.put("BASE_URL", "http://127.0.0.1:" + port);
        env.put("ADMIN_USER", "org-ops");
        env.put("ADMIN_PASSWORD", "org password 27");
        env.put("E2E_TENANTS", "org-web,org-batch");
        env.put("ORG", "e2e-org");
        env.put("CHROMIUM", chromium);
        env.put("SCREENSHOTS", shots.toString());
        Process p = pb.start();
        boolean finished = p.waitFor(3, TimeUnit.MINUTES);
        if (!finished) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        String output = Files.readString(out);
        Files.deleteIfExists(out);
        System.out.println(output);
        assertThat(finished).as("the browser script finished:%n%s", output).isTrue();
        assertThat(p.exitValue())
                .as("the browser script's exit code:%n%s", output)
                .isZero();
        assertThat(output).contains("[org-e2e] all ").doesNotContain("FAILED");
        // What the operator did is what the gateway holds now.
        assertThat(organisations.findById("e2e-org").block(Duration.ofSeconds(5)))
                .isNull();
        assertThat(tenants.findById("org-web").block(Duration.ofSeconds(5)).organisation())
                .isNull();
    }
}
