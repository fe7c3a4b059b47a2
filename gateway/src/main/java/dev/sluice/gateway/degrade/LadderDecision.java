package dev.sluice.gateway.degrade;

import dev.sluice.gateway.api.Stage;

/**
 * @param stage   what to do
 * @param model   for DOWNGRADED: the model to send instead; else the requested one
 * @param delayMs for DELAYED: how long to hold before trying again (at least what the quota needs)
 */
public record LadderDecision(Stage stage, String model, long delayMs) {
    public static LadderDecision pass(String model) {
        return new LadderDecision(Stage.PASSED, model, 0);
    }

    public static LadderDecision reject(String model) {
        return new LadderDecision(Stage.REJECTED, model, 0);
    }
}
