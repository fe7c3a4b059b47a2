package dev.sluice.gateway.tiers;

import dev.sluice.gateway.config.ConfigException;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.TierConfiguration;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.support.Periodic;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Keeps this replica's {@link ConfigRegistry} on the stored tiers document. It polls the
 * document's version (one small read a second); on a new version it parses the document,
 * applies the SLUICE_PROVIDER_URL override and replaces the config. A document that fails to
 * parse here keeps the last good config, says so in the log (once per version) and in
 * {@code sluice.config.reload{result="invalid"}}.
 */
public final class TierReloader {
    /** Tagged {@code result}: applied, invalid, store-error. */
    static final String RELOADS = "sluice.config.reload";

    private static final Logger log = LoggerFactory.getLogger(TierReloader.class);

    private final TierDocumentStore store;
    private final ConfigRegistry registry;
    private final String providerUrl;
    private final MeterRegistry meters;
    private final Consumer<SluiceConfig> onProvidersChanged;
    private final AtomicLong appliedVersion = new AtomicLong();
    private final AtomicLong refusedVersion = new AtomicLong();
    /** How often the version is polled (set at start); a poll that takes twice that is given up. */
    private volatile Duration pollInterval = Duration.ofSeconds(1);

    private final Periodic polling = new Periodic(
            "tiers version poll",
            () -> checkOnce().timeout(pollInterval.multipliedBy(2)).onErrorResume(e -> {
                count("store-error");
                log.debug("Tiers version poll failed: {}", e.toString());
                return Mono.empty();
            }));
    /** The document whose config is in force here: put back as it is if Redis comes back empty. */
    private volatile TierDocument inForce;

    public TierReloader(
            TierDocumentStore store,
            ConfigRegistry registry,
            String providerUrl,
            MeterRegistry meters,
            Consumer<SluiceConfig> onProvidersChanged) {
        this.store = store;
        this.registry = registry;
        this.providerUrl = providerUrl == null ? "" : providerUrl;
        this.meters = meters;
        this.onProvidersChanged = onProvidersChanged;
        Gauge.builder("sluice.config.version", appliedVersion, AtomicLong::get)
                .description("Version of the tiers document in force on this replica")
                .register(meters);
        registerMeters();
    }

    /**
     * The document text the store is seeded with, and the version in force from then on. Blocks
     * at most {@code timeout}: start-up only. A store that does not answer leaves the seed's
     * config in force (the registry holds it already); polling picks the stored version up, and
     * {@link #restoreInForce()} seeds an empty store, once it answers.
     */
    public void start(String seedYaml, String seedSource, Duration timeout) {
        inForce = new TierDocument(seedYaml, 1, seedSource, Instant.now());
        TierDocument doc;
        try {
            doc = store.seedIfAbsent(seedYaml, seedSource).block(timeout);
        } catch (RuntimeException e) {
            log.warn(
                    "The tiers store did not answer at start ({}); {} is in force until it does",
                    e.toString(),
                    seedSource);
            return;
        }
        if (doc == null) throw new IllegalStateException("the tiers store returned no document");
        if (doc.yaml().equals(seedYaml)) {
            appliedVersion.set(doc.version()); // the registry already holds this text's config
            inForce = doc;
        } else {
            log.info(
                    "Tiers from the shared store (version {}, by {}); {} is only the seed",
                    doc.version(),
                    doc.updatedBy(),
                    seedSource);
            apply(doc);
        }
    }

    /**
     * Puts the document in force here back into an empty store, at its version (so every
     * replica's polling sees nothing older than what it runs). A no-op when a document exists.
     */
    public Mono<Void> restoreInForce() {
        return store.restoreIfAbsent(inForce).then();
    }

    /** Polls the version every {@code interval} until {@link #stop()}. */
    public void startPolling(Duration interval) {
        pollInterval = interval;
        polling.start(interval, interval);
    }

    public void stop() {
        polling.stop();
    }

    /** One poll: fetch and apply the document when its version differs from the one in force. */
    public Mono<Void> checkOnce() {
        return store.version().flatMap(v -> {
            if (v == 0 || v == appliedVersion.get() || v == refusedVersion.get()) return Mono.<Void>empty();
            return store.current().doOnNext(this::apply).then();
        });
    }

    /** Parses and installs {@code doc}; on a bad document keeps the config in force and reports it. */
    public boolean apply(TierDocument doc) {
        SluiceConfig next;
        try {
            next = TierConfiguration.withProviderOverride(
                    TiersYamlParser.parse("tiers (version " + doc.version() + ")", doc.yaml()), providerUrl);
        } catch (ConfigException e) {
            if (refusedVersion.getAndSet(doc.version()) != doc.version()) {
                count("invalid");
                log.error(
                        "Tiers version {} (by {}) is invalid; keeping version {} in force. {}",
                        doc.version(),
                        doc.updatedBy(),
                        appliedVersion.get(),
                        e.getMessage());
            }
            return false;
        }
        install(doc, next);
        return true;
    }

    /** Installs a document already parsed (the admin API validated it before writing). */
    public synchronized void install(TierDocument doc, SluiceConfig parsed) {
        if (doc.version() < appliedVersion.get()) return; // a poll already brought a newer one
        SluiceConfig previous = registry.current();
        registry.replace(parsed);
        appliedVersion.set(doc.version());
        inForce = doc;
        count("applied");
        log.info(
                "Tiers version {} (by {}) in force: tiers {}",
                doc.version(),
                doc.updatedBy(),
                parsed.tiers().keySet());
        if (!previous.providers().equals(parsed.providers())) onProvidersChanged.accept(parsed);
    }

    /** Parses a document as it would be applied here (the provider override included); throws {@link ConfigException}. */
    public SluiceConfig parse(String source, String yaml) {
        return TierConfiguration.withProviderOverride(TiersYamlParser.parse(source, yaml), providerUrl);
    }

    public long appliedVersion() {
        return appliedVersion.get();
    }

    /** Both results at zero from start, so an alert on the first refused document sees it rise. */
    private void registerMeters() {
        for (String result : List.of("applied", "invalid")) meters.counter(RELOADS, "result", result);
    }

    private void count(String result) {
        meters.counter(RELOADS, "result", result).increment();
    }
}
