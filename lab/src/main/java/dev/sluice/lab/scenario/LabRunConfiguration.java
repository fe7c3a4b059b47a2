package dev.sluice.lab.scenario;

import dev.sluice.gateway.admin.AdminApiExtension;
import java.time.Clock;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The lab runs behind {@code /admin/api/lab/runs}, and the console shows its Lab page, only where
 * this module is on the class path (the quickstart) and the lab provider serves (no
 * {@code SLUICE_PROVIDER_URL}): a replica in front of a real provider has no business booting a
 * second gateway in-process, and answers 404 {@code unknown_endpoint} there.
 * {@code sluice.lab.scenario.options} takes the command's options ({@code --time-factor=10
 * --users=3 …}, see docs/lab.md) for every run started here; a bad one stops the start with its name.
 */
@AutoConfiguration
@ConditionalOnExpression("'${sluice.provider.url:}'.isBlank()")
@EnableConfigurationProperties(LabScenarioProperties.class)
public class LabRunConfiguration {
    @Bean(destroyMethod = "close")
    LabRuns labRuns(LabScenarioProperties properties) {
        return new LabRuns(properties.settings(), Clock.systemUTC());
    }

    @Bean
    AdminApiExtension labRunsApi(LabRuns runs) {
        LabRunsHandler lab = new LabRunsHandler(runs);
        return api -> api.POST("/lab/runs", lab::start)
                .GET("/lab/runs/latest", lab::latest)
                .GET("/lab/runs/{id}", lab::get);
    }
}
