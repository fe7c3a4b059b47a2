package dev.sluice.gateway.drafts;

import dev.sluice.gateway.config.ConfigException;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.shadow.ShadowTiers;
import dev.sluice.gateway.support.Periodic;
import java.time.Duration;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The draft in shadow as this replica knows it: polls the draft store's version (one small read
 * every poll interval, as {@code TierReloader} polls the document) and, on a change, reads and
 * parses the draft. The admin API applies its own changes at once; other replicas follow within
 * their poll interval. A draft that no longer parses here (another replica's provider override)
 * is treated as no shadow, and said so in the log.
 */
public final class DraftShadow implements ShadowTiers {
    private static final Logger log = LoggerFactory.getLogger(DraftShadow.class);

    /** What the request path reads, all at once: {@code config} null when shadow is off. */
    private record Snapshot(long storeVersion, SluiceConfig config, long draftVersion, long sinceMs) {}

    private final TierDraftStore store;
    private final BiFunction<String, String, SluiceConfig> parser;
    private volatile Snapshot snapshot = new Snapshot(-1, null, 0, 0);
    private volatile Duration pollInterval = Duration.ofSeconds(1);
    private final Periodic polling = new Periodic(
            "tiers draft poll",
            () -> checkOnce().timeout(pollInterval.multipliedBy(2)).onErrorResume(e -> {
                log.debug("Tiers draft poll failed: {}", e.toString());
                return Mono.empty();
            }));

    /** {@code parser}: (source, yaml) to the config as this replica would apply it; throws {@link ConfigException}. */
    public DraftShadow(TierDraftStore store, BiFunction<String, String, SluiceConfig> parser) {
        this.store = store;
        this.parser = parser;
    }

    @Override
    public SluiceConfig draft() {
        return snapshot.config();
    }

    @Override
    public long draftVersion() {
        Snapshot s = snapshot;
        return s.config() == null ? 0 : s.draftVersion();
    }

    @Override
    public InShadow inShadow() {
        Snapshot s = snapshot;
        return new InShadow(s.config(), s.config() == null ? 0 : s.draftVersion());
    }

    @Override
    public long sinceMs() {
        Snapshot s = snapshot;
        return s.config() == null ? 0 : s.sinceMs();
    }

    public void startPolling(Duration interval) {
        pollInterval = interval;
        polling.start(Duration.ZERO, interval);
    }

    public void stop() {
        polling.stop();
    }

    /** One poll: read the draft when the store's version is not the one this replica applied. */
    public Mono<Void> checkOnce() {
        return store.version().flatMap(v -> {
            if (v == snapshot.storeVersion()) return Mono.<Void>empty();
            return store.current()
                    .map(java.util.Optional::of)
                    .defaultIfEmpty(java.util.Optional.empty())
                    .doOnNext(d -> apply(v, d.orElse(null)))
                    .then();
        });
    }

    /** Installs what a change left ({@code draft} null: none); a version older than the one applied is ignored. */
    public synchronized void apply(long storeVersion, TierDraft draft) {
        if (storeVersion < snapshot.storeVersion()) return;
        if (draft == null || !draft.shadow()) {
            if (snapshot.config() != null) log.info("Tiers draft shadow off (draft version {})", storeVersion);
            snapshot = new Snapshot(storeVersion, null, 0, 0);
            return;
        }
        SluiceConfig parsed;
        try {
            parsed = parser.apply("tiers draft (version " + draft.version() + ")", draft.yaml());
        } catch (ConfigException e) {
            log.error("Tiers draft version {} does not parse here; no shadow. {}", draft.version(), e.getMessage());
            snapshot = new Snapshot(storeVersion, null, 0, 0);
            return;
        }
        snapshot = new Snapshot(
                storeVersion, parsed, draft.version(), draft.shadowSince().toEpochMilli());
        log.info(
                "Tiers draft version {} (by {}) in shadow since {}",
                draft.version(),
                draft.author(),
                draft.shadowSince());
    }
}
