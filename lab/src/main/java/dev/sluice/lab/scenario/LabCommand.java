package dev.sluice.lab.scenario;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.slf4j.LoggerFactory;

/**
 * {@code ./mvnw -q -pl gateway -am -DskipTests -Plab package spring-boot:run}: runs seed 000's cases and the ramp, prints
 * the table, and writes {@code target/lab/report.json} and {@code target/lab/report.html}.
 * Options ({@code -Dlab.args="--cases=case2,case4 --ramp=false"}): see {@link ScenarioSettings#with}
 * and {@code --out=DIR}. Needs no Redis and no provider key: the provider is the lab's.
 */
public final class LabCommand {
    private LabCommand() {
    }

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
        System.out.printf(Locale.ROOT, "Sluice lab: %s%s at time ×%s …%n", settings.caseOrder().stream().map(CaseId::id).toList(),
                settings.ramp() ? " and the ramp" : "", settings.timeFactor());
        LabReport report = new ScenarioRunner(settings, (step, done, total) -> {
            if (step != null) System.out.printf(Locale.ROOT, "  [%d/%d] %s%n", done + 1, total, step);
        }).run();
        double wall = (System.nanoTime() - started) / 1e9;

        System.out.println();
        System.out.print(LabReportTable.render(report));
        Files.createDirectories(out);
        Path json = out.resolve("report.json");
        Path html = out.resolve("report.html");
        Files.writeString(json, LabReportJson.write(report));
        Files.writeString(html, LabReportChart.html(report));
        System.out.printf(Locale.ROOT, "%nWall time %.0f s. Report: %s%nChart:  %s%n", wall, json.toAbsolutePath(),
                html.toAbsolutePath());
        System.exit(0); // Reactor's and Netty's non-daemon threads would otherwise keep the JVM up
    }

    static String usage() {
        return String.join("\n", Arrays.asList(
                "usage: ./mvnw -q -pl gateway -am -DskipTests -Plab package spring-boot:run [-Dlab.args=\"OPTIONS\"]",
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
                "  --out=target/lab          where report.json and report.html go"));
    }

    /**
     * The command prints its own table; the libraries' INFO lines (and Logback's default DEBUG) would
     * bury it, and case 4's gateway saying it has no Redis is by design here.
     */
    private static void quietLogging() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(Level.WARN);
            context.getLogger("dev.sluice.gateway.store.StoreConfiguration").setLevel(Level.ERROR);
        }
    }
}
