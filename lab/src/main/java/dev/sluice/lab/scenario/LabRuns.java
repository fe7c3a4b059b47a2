package dev.sluice.lab.scenario;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lab runs started through the admin API: one at a time, each on a thread of its own, results
 * kept in memory on this replica (the last {@link #KEPT}). A run starts its own lab provider and,
 * for case 4, its own gateway: it never touches this gateway's provider, budget or tenants.
 */
public final class LabRuns implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LabRuns.class);
    static final int KEPT = 10;

    public enum Status {
        RUNNING,
        DONE,
        FAILED;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Where a run is: the step under way ({@code null} once over), steps done, steps in all. */
    public record Progress(String step, int done, int total) {}

    /** A run as the API shows it; {@code report} once done, {@code error} once failed. */
    public record Run(
            String id,
            Status status,
            Instant startedAt,
            Instant finishedAt,
            Progress progress,
            String error,
            LabReport report) {}

    /** Another run is going: one at a time, since each loads the machine on purpose. */
    public static final class BusyException extends RuntimeException {
        private final String runningId;

        BusyException(String runningId) {
            super("A lab run is already going (" + runningId + "); one runs at a time.");
            this.runningId = runningId;
        }

        public String runningId() {
            return runningId;
        }
    }

    private final ScenarioSettings base;
    private final Clock clock;
    private final Function<ScenarioSettings, ScenarioRunner> runners;
    private final Deque<Run> runs = new ArrayDeque<>(); // newest first
    private Thread worker;

    public LabRuns(ScenarioSettings base, Clock clock) {
        this(base, clock, settings -> null);
    }

    /** @param runners makes the runner for a run's settings; {@code null} from it means the real one */
    LabRuns(ScenarioSettings base, Clock clock, Function<ScenarioSettings, ScenarioRunner> runners) {
        this.base = Objects.requireNonNull(base, "base");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.runners = runners;
    }

    /** Starts a run of {@code cases} (and the ramp) in the background. */
    public synchronized Run start(Set<CaseId> cases, boolean ramp) {
        Run current = runs.peekFirst();
        if (current != null && current.status() == Status.RUNNING) throw new BusyException(current.id());
        ScenarioSettings settings = base.withCases(cases, ramp);
        String id = UUID.randomUUID().toString();
        Run run = new Run(id, Status.RUNNING, now(), null, new Progress(null, 0, settings.steps()), null, null);
        runs.addFirst(run);
        while (runs.size() > KEPT) runs.removeLast();
        ScenarioRunner made = runners.apply(settings);
        ScenarioRunner runner = made != null
                ? made
                : new ScenarioRunner(
                        settings,
                        (step, done, total) -> update(
                                id,
                                r -> new Run(
                                        r.id(),
                                        r.status(),
                                        r.startedAt(),
                                        null,
                                        new Progress(step, done, total),
                                        null,
                                        null)));
        worker = new Thread(() -> execute(id, runner), "sluice-lab-run");
        worker.setDaemon(true);
        worker.start();
        log.info(
                "Lab run {} started: {}{}",
                id,
                settings.caseOrder().stream().map(CaseId::id).toList(),
                ramp ? " and the ramp" : "");
        return run;
    }

    private void execute(String id, ScenarioRunner runner) {
        try {
            LabReport report = runner.run();
            update(
                    id,
                    r -> new Run(
                            r.id(),
                            Status.DONE,
                            r.startedAt(),
                            now(),
                            new Progress(
                                    null, r.progress().total(), r.progress().total()),
                            null,
                            report));
            log.info("Lab run {} done", id);
        } catch (RuntimeException | Error e) {
            log.warn("Lab run {} failed", id, e);
            String message = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            update(id, r -> new Run(r.id(), Status.FAILED, r.startedAt(), now(), r.progress(), message, null));
        }
    }

    public synchronized Optional<Run> find(String id) {
        return runs.stream().filter(r -> r.id().equals(id)).findFirst();
    }

    public synchronized Optional<Run> latest() {
        return Optional.ofNullable(runs.peekFirst());
    }

    private synchronized void update(String id, UnaryOperator<Run> change) {
        Deque<Run> updated = new ArrayDeque<>();
        for (Run r : runs) updated.addLast(r.id().equals(id) ? change.apply(r) : r);
        runs.clear();
        runs.addAll(updated);
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.SECONDS);
    }

    /** On shutdown: a run in progress is interrupted at its next wait. */
    @Override
    public synchronized void close() {
        if (worker != null && worker.isAlive()) worker.interrupt();
    }
}
