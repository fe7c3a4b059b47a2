package dev.sluice.gateway.lab.scenario;

import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The lab runs behind {@code /admin/api/lab/runs}. {@code sluice.lab.scenario.options} takes the
 * command's options ({@code --time-factor=10 --users=3 …}, see README, Lab) for every run started
 * here; a bad one stops the start with its name. Only where the lab provider serves (no
 * {@code SLUICE_PROVIDER_URL}): a replica in front of a real provider has no business booting a
 * second gateway in-process, and answers 404 {@code unknown_endpoint} there (the console then
 * says the lab is not part of this gateway).
 */
@Configuration(proxyBeanMethods = false)
@org.springframework.boot.autoconfigure.condition.ConditionalOnExpression("'${sluice.provider.url:}'.isBlank()")
public class LabRunConfiguration {
    @Bean(destroyMethod = "close")
    LabRuns labRuns(@Value("${sluice.lab.scenario.options:}") String options) {
        ScenarioSettings settings;
        try {
            settings = ScenarioSettings.defaults().with(List.of(options.trim().split("\\s+")));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("sluice.lab.scenario.options: " + e.getMessage(), e);
        }
        return new LabRuns(settings, Clock.systemUTC());
    }
}
