package dev.sluice.gateway.config;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The endpoint families of OpenAI's API under {@code /v1}, as a tier opens them in tiers.yaml
 * ({@code endpoints: [chat, files]}): the second path segment, written as OpenAI writes it.
 * {@link #MODELS} is not among them: the gateway answers it from the configuration, so it is
 * open to every tier and cannot be listed.
 */
public enum Family {
    CHAT,
    COMPLETIONS,
    EMBEDDINGS,
    RESPONSES,
    MODERATIONS,
    IMAGES,
    AUDIO,
    FILES,
    BATCHES,
    UPLOADS,
    VECTOR_STORES,
    ASSISTANTS,
    THREADS,
    FINE_TUNING,
    REALTIME,
    EVALS,
    CONTAINERS,
    CONVERSATIONS,
    /** GET /v1/models: answered by the gateway, open to every tier, never listed. */
    MODELS,
    /** The gateway's own tenant endpoints ({@code GET /v1/sluice/usage}): answered by it, open to every tier, never listed. */
    SLUICE;

    /** Whether the gateway answers the family itself: free, open to every tier, not a tier's to list. */
    public boolean answeredByGateway() {
        return this == MODELS || this == SLUICE;
    }

    /**
     * What a tier opens when it does not say: the families whose cost Sluice estimates or that
     * spend nothing at the provider. Within them, only the operations that Sluice meters or that
     * spend nothing; see {@link EndpointAccess}.
     */
    public static final Set<Family> DEFAULT = Set.copyOf(
            EnumSet.of(CHAT, COMPLETIONS, EMBEDDINGS, RESPONSES, MODERATIONS, IMAGES, AUDIO, FILES, BATCHES));

    /** As written in a path and in tiers.yaml: {@code vector_stores}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The family a tier may list under that name; models is not one. */
    public static Optional<Family> listable(String wireName) {
        return Arrays.stream(values())
                .filter(f -> !f.answeredByGateway() && f.wireName().equals(wireName))
                .findFirst();
    }
}
