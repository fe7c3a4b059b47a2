package dev.sluice.lab.provider;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.estimate.TokenEstimator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The lab bills with the estimator's model table: if the two counted a model with different
 * vocabularies, the gateway's estimate and the simulated provider's usage would drift apart by
 * 10-30% for that model, and every scenario on it would measure the table, not the gateway.
 */
class PromptTokenCounterTest {
    private static final TokenEstimator ESTIMATOR = new TokenEstimator();
    /** Where o200k and cl100k disagree, so a count shows which vocabulary counted. */
    private static final String MIXED = "Données de télémétrie: 数据流量 — ¿qué pasó? Привет, мир! 🎉";

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "gpt-4o, o200k_base",
        "gpt-4o-mini-2024-07-18, o200k_base",
        "chatgpt-4o-latest, o200k_base",
        "gpt-4.1-nano, o200k_base",
        "gpt-4.5-preview, o200k_base",
        "gpt-5-mini, o200k_base",
        "gpt-oss-120b, o200k_base",
        "o1, o200k_base",
        "o3-mini, o200k_base",
        "o4-mini, o200k_base",
        "ft:gpt-4o-mini-2024-07-18:org::abc, o200k_base",
        "openai/gpt-4o, o200k_base",
        "GPT-4O, o200k_base",
        "gpt-4, cl100k_base",
        "gpt-4-turbo, cl100k_base",
        "gpt-3.5-turbo, cl100k_base",
        "text-embedding-3-small, cl100k_base",
        "text-embedding-ada-002, cl100k_base",
        "llama-3.1-70b-instruct, o200k_base", // unknown: the estimator's default, see ModelEncodings
        "mistral-large, o200k_base",
    })
    void theLabCountsEveryModelFamilyWithTheEstimatorsEncoding(String model, String encoding) {
        PromptTokenCounter lab = PromptTokenCounter.shared();

        assertThat(ESTIMATOR.encodingFor(model).getName()).as("estimator").isEqualTo(encoding);
        assertThat(lab.encodingFor(model).getName()).as("lab").isEqualTo(encoding);
        assertThat(lab.count(model, MIXED))
                .isEqualTo(ESTIMATOR.encodingFor(model).countTokensOrdinary(MIXED));
    }
}
