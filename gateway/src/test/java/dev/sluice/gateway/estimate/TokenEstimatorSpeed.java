package dev.sluice.gateway.estimate;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Rough timing of {@link TokenEstimator} on large prompts (a main, not a test: timings do not
 * belong in assertions). Run from the gateway module after test-compile:
 * {@code java -cp target/classes:target/test-classes:<deps> dev.sluice.gateway.estimate.TokenEstimatorSpeed}.
 */
public final class TokenEstimatorSpeed {
    private static final String[] WORDS = {
        "the",
        "gateway",
        "charges",
        "each",
        "request",
        "before",
        "it",
        "runs,",
        "and",
        "corrects",
        "the",
        "estimate",
        "when",
        "usage",
        "is",
        "known.",
        "Tokens",
        "per",
        "minute",
        "(TPM)",
        "limits",
        "apply",
        "to",
        "tenants;",
        "2048",
        "données",
        "数据",
        "\n"
    };

    private TokenEstimatorSpeed() {}

    public static void main(String[] args) {
        TokenEstimator estimator = new TokenEstimator();
        Random random = new Random(42);
        StringBuilder prose = new StringBuilder();
        while (prose.length() < 100_000)
            prose.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
        StringBuilder base64 = new StringBuilder();
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        while (base64.length() < 100_000) base64.append(alphabet.charAt(random.nextInt(alphabet.length())));

        time(estimator, "100 KB prose", message(prose.toString()));
        time(estimator, "100 KB base64", message(base64.toString()));
        StringBuilder conversation = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            conversation.append(i == 0 ? "" : ",").append(message(prose.substring(i * 1000, i * 1000 + 1000)));
        }
        time(estimator, "100 messages of 1 KB", conversation.toString());
    }

    private static String message(String text) {
        return "{\"role\":\"user\",\"content\":\"" + text.replace("\n", "\\n") + "\"}";
    }

    private static void time(TokenEstimator estimator, String label, String messages) {
        byte[] body = ("{\"model\":\"gpt-4o\",\"messages\":[" + messages + "]}").getBytes(StandardCharsets.UTF_8);
        long tokens = 0;
        for (int i = 0; i < 200; i++)
            tokens = estimator.estimate("/v1/chat/completions", body, 0).promptTokens();
        int runs = 200;
        long start = System.nanoTime();
        for (int i = 0; i < runs; i++)
            tokens = estimator.estimate("/v1/chat/completions", body, 0).promptTokens();
        long micros = (System.nanoTime() - start) / runs / 1000;

        long parseStart = System.nanoTime();
        for (int i = 0; i < runs; i++) JsonBodies.parseObject(body);
        long parseMicros = (System.nanoTime() - parseStart) / runs / 1000;
        System.out.printf(
                "%s (%d bytes, %d tokens): %d us per estimate, of which JSON parse %d us%n",
                label, body.length, tokens, micros, parseMicros);
    }
}
