package dev.sluice.lab.scenario;

import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code sluice.lab.scenario.*}: the options of every lab run started through the admin API.
 *
 * @param options the lab command's options ({@code --time-factor=10 --users=3 …}, docs/lab.md),
 *                checked when bound: a bad one stops the start with its name
 */
@ConfigurationProperties("sluice.lab.scenario")
public record LabScenarioProperties(@DefaultValue("") String options) {

    public LabScenarioProperties {
        settings(options); // validate now, not at the first run
    }

    public ScenarioSettings settings() {
        return settings(options);
    }

    private static ScenarioSettings settings(String options) {
        try {
            return ScenarioSettings.defaults().with(List.of(options.trim().split("\\s+")));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("sluice.lab.scenario.options: " + e.getMessage(), e);
        }
    }
}
