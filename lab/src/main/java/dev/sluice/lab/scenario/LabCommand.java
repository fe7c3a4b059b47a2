package dev.sluice.lab.scenario;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import dev.sluice.lab.provider.PromptCount;
import dev.sluice.lab.provider.ProviderWays;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ./mvnw -q -pl gateway -am -DskipTests -Plab package spring-boot:run}: runs seed 000's cases and the ramp, prints
 * the table, and writes {@code target/lab/report.json} and {@code target/lab/report.html}.
 * Options ({@code -Dlab.args="--cases=case2,case4 --ramp=false"}): see {@link ScenarioSettings#with}
 * and {@code --out=DIR}. Needs no Redis and no provider key: the provider is the lab's.
 */
public final class LabCommand {
    private LabCommand() {}

    public static void main(String[] args) throws IOException {
        quietLogging();
        List<String> options = new ArrayList<>();
        Path out = Path.of("target", "lab");
        // -Dlab.args may arrive as one argument: split it on blanks.
        for (String arg : args) {
            for (String option : arg.trim().split("\\s+")) {
                if (option.isBlank()) continue;
                if (option.equals("--help") || option.equals("-h")) {
                    System.out.println(usage());
                    return;
                }
                if (option.startsWith("--out=")) out = Path.of(option.substring("--out=".length()));
                else options.add(option);
            }
        }
        ScenarioSettings settings;
        try {
            settings = ScenarioSettings.defaults().with(options);
        } catch (IllegalArgumentException e) {
            System.err.println("lab: " + e.getMessage() + "\n\n" + usage());
            System.exit(2);
            return;
        }
        long started = System.nanoTime();
        System.out.printf(
                Locale.ROOT,
                "Sluice lab: %s%s at time ×%s …%n",
                settings.caseOrder().stream().map(CaseId::id).toList(),
                settings.ramp() ? " and the ramp" : "",
                settings.timeFactor());
        if (!settings.ways().equals(ProviderWays.DEFAULT)
                || settings.limits().inputTokensPerMinute() > 0
                || settings.limits().outputTokensPerMinute() > 0) {
            // The table's provider line shows its limits only; say how this one differs from the estimator's picture.
            var c = settings.ways().promptCount();
            System.out.printf(
                    Locale.ROOT,
                    "Provider's ways: counts %s x %s + %d a message; clock %+d ms; requests %d ms, answers %d ms late;"
                            + " ITPM %d, OTPM %d (0 = none)%n",
                    c.method() == PromptCount.Method.BPE ? "bpe" : "chars/" + c.charsPerToken(),
                    c.factor(),
                    c.tokensPerMessage(),
                    settings.ways().clockOffset().toMillis(),
                    settings.ways().requestLatency().toMillis(),
                    settings.ways().extraLatency().toMillis(),
                    settings.limits().inputTokensPerMinute(),
                    settings.limits().outputTokensPerMinute());
        }
        LabReport report = new ScenarioRunner(settings, (step, done, total) -> {
                    if (step != null) System.out.printf(Locale.ROOT, "  [%d/%d] %s%n", done + 1, total, step);
                })
                .run();
        double wall = (System.nanoTime() - started) / 1e9;

        System.out.println();
        System.out.print(LabReportTable.render(report));
        Files.createDirectories(out);
        Path json = out.resolve("report.json");
        Path html = out.resolve("report.html");
        Files.writeString(json, LabReportJson.write(report));
        Files.writeString(html, LabReportChart.html(report));
        System.out.printf(
                Locale.ROOT,
                "%nWall time %.0f s. Report: %s%nChart:  %s%n",
                wall,
                json.toAbsolutePath(),
                html.toAbsolutePath());
        System.exit(0); // Reactor's and Netty's non-daemon threads would otherwise keep the JVM up
    }

    static String usage() {
        return String.join(
                "\n",
                Arrays.asList(
                        "usage: ./mvnw -q -pl lab -am -DskipTests -Plab package spring-boot:run [-Dlab.args=\"OPTIONS\"]",
                        "  --cases=case1,...,case5   which cases (default: all)",
                        "  --ramp=true|false         the ramp as well (default: true)",
                        "  --time-factor=10          how much faster than the wall the lab's clock runs (1..100)",
                        "  --users=3 --solo-users=1  users in cases 2-5 and in case 1",
                        "  --pages=100               pages per book",
                        "  --upload-for=15 --think=2 seed seconds users upload for, and pause between books",
                        "  --rpm=1500 --tpm=300000 --in-flight=200 --latency-ms=2000 --price=3.0   the provider's limits",
                        "  --pool=200                case 5's connections",
                        "  --ramp-users=1,2,3,5,8,12,20,30,50,80",
                        "  --seed=42                 the provider's latency jitter",
                        "  --warm-up=2000            pages sent before measuring, so the JIT has compiled the hot paths",
                        "  --provider-count=bpe|chars:4 --count-factor=1.0 --tokens-per-message=4   how the provider counts a prompt",
                        "  --clock-offset=0ms --extra-latency=0ms   its clock against the gateway's; how late its answers arrive",
                        "  --request-latency=0ms                   the most a request travels before the provider counts it (each a random share)",
                        "  --itpm=0 --otpm=0         its input and output tokens per minute (0 = none; the provider's only)",
                        "  --out=target/lab          where report.json and report.html go"));
    }

    /**
     * The command prints its own table; the libraries' INFO lines (and Logback's default DEBUG) would
     * bury it, and case 4's gateway saying it has no Redis is by design here.
     */
    private static void quietLogging() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.WARN);
            context.getLogger("dev.sluice.gateway.store.StoreConfiguration").setLevel(Level.ERROR);
        }
    }
}
