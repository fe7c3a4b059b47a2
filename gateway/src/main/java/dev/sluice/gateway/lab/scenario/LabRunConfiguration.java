package dev.sluice.gateway.lab.scenario;

import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The lab runs behind {@code /admin/api/lab/runs}. {@code sluice.lab.scenario.options} takes the
 * command's options ({@code --time-factor=10 --users=3 …}, see README, Lab) for every run started
 * here; a bad one stops the start with its name.
 */
@Configuration(proxyBeanMethods = false)
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
