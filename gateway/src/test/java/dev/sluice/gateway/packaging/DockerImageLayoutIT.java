package dev.sluice.gateway.packaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Dockerfile and the layered jar agree. No Docker engine runs here, so this plays the
 * Dockerfile's steps by hand on the jar that {@code package} just built (failsafe runs it in
 * {@code verify}, after {@code package}; a missing jar is a failure, not a skip):
 * the builder's COPY picks exactly that jar, its RUN (the tools jarmode extract) succeeds and
 * yields every layer the jar declares, every COPY of the final stage names a directory of that
 * output and together they copy every layer, and the copied layout starts with the image's
 * ENTRYPOINT and JVM options, as the non-root user's process would, and serves a request.
 */
class DockerImageLayoutIT {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final List<String> BOOT_LAYERS =
            List.of("dependencies", "spring-boot-loader", "snapshot-dependencies", "application");

    static Path jar;
    static Dockerfile dockerfile;

    @TempDir
    static Path work;

    /** The production image has no simulated provider: it is pointed at one, as in a real deployment. */
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering(FakeUpstream.CHAT_ANSWER);

    /** Where the builder stage's "/" is, and the final image's "/". */
    static Path builderRoot;

    static Path imageRoot;

    @BeforeAll
    static void buildTheImageByHand() throws Exception {
        String jarProperty = System.getProperty("sluice.jar");
        assertThat(jarProperty)
                .as("sluice.jar is set by the failsafe configuration in gateway/pom.xml")
                .isNotBlank();
        jar = Path.of(jarProperty).toAbsolutePath().normalize();
        assertThat(jar)
                .as("the repackaged jar from `package`; run this through `./mvnw verify`")
                .isRegularFile();
        dockerfile = Dockerfile.parse(ROOT.resolve("Dockerfile"));

        builderRoot = Files.createDirectories(work.resolve("builder-root"));
        imageRoot = Files.createDirectories(work.resolve("image-root"));

        // Builder stage: COPY the jar from the build context, then RUN the extract command.
        Dockerfile.Stage builder = dockerfile.stage("builder");
        for (Dockerfile.Copy copy : builder.copies()) {
            assertThat(copy.from())
                    .as("the builder copies from the build context")
                    .isNull();
            Path source = onlyMatch(copy.source());
            copyInto(source, resolve(builderRoot, builder.workdir(), copy.destination()));
        }
        Path builderWorkdir = resolve(builderRoot, builder.workdir(), ".");
        for (String run : builder.runs()) {
            List<String> command = new ArrayList<>(List.of(run.split("\\s+")));
            assertThat(command.get(0))
                    .as("the builder's RUN is a java command: " + run)
                    .isEqualTo("java");
            command.set(0, javaExecutable());
            Process p = new ProcessBuilder(command)
                    .directory(builderWorkdir.toFile())
                    .redirectErrorStream(true)
                    .start();
            String output = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("`%s` failed:%n%s", run, output).isZero();
        }

        // Final stage: every COPY --from=builder lands in the image's WORKDIR.
        Dockerfile.Stage image = dockerfile.last();
        for (Dockerfile.Copy copy : image.copies()) {
            assertThat(copy.from())
                    .as("the final stage copies only from the builder: " + copy)
                    .isEqualTo("builder");
            Path source = resolve(builderRoot, "/", copy.source());
            assertThat(source)
                    .as("COPY --from=builder %s: the extract made no such directory", copy.source())
                    .isDirectory();
            copyInto(source, resolve(imageRoot, image.workdir(), copy.destination()));
        }
    }

    /** The simulator, the scenario runner and the benchmarks are modules the quickstart and the lab add. */
    @Test
    void theProductionJarCarriesTheProductOnly() throws IOException {
        try (JarFile jf = new JarFile(jar.toFile())) {
            List<String> entries = jf.stream().map(e -> e.getName()).toList();
            assertThat(entries)
                    .as("the gateway's own classes")
                    .contains("BOOT-INF/classes/dev/sluice/gateway/SluiceApplication.class");
            assertThat(entries)
                    .as("no lab provider, scenario runner, child gateway or benchmark")
                    .noneMatch(n -> n.startsWith("BOOT-INF/classes/dev/sluice/lab/")
                            || n.startsWith("BOOT-INF/classes/dev/sluice/bench/")
                            || n.contains("/gateway/lab/")
                            || n.contains("/bench/")
                            || n.contains("ChildGateway")
                            || n.contains("Scenario"))
                    .noneMatch(n -> n.startsWith("BOOT-INF/lib/sluice-lab")
                            || n.startsWith("BOOT-INF/lib/sluice-bench")
                            || n.startsWith("BOOT-INF/lib/jmh-"));
            assertThat(jf.getManifest().getMainAttributes().getValue("Start-Class"))
                    .isEqualTo("dev.sluice.gateway.SluiceApplication");
        }
    }

    @Test
    void theBuilderCopiesExactlyTheJarThatPackageBuilt() throws IOException {
        Dockerfile.Copy copy = dockerfile.stage("builder").copies().get(0);
        assertThat(onlyMatch(copy.source())).isEqualTo(jar);
        try (JarFile jf = new JarFile(jar.toFile())) {
            assertThat(jf.getManifest().getMainAttributes().getValue("Spring-Boot-Layers-Index"))
                    .as("a layered jar (Boot writes layers.idx by default)")
                    .isEqualTo("BOOT-INF/layers.idx");
        }
    }

    @Test
    void theExtractYieldsEveryLayerTheJarDeclaresAndTheFinalStageCopiesEachOnce() throws Exception {
        List<String> declared = listLayers();
        assertThat(declared).as("the layers Boot writes by default, in order").containsExactlyElementsOf(BOOT_LAYERS);
        Path extracted = onlyChildDirectory(
                resolve(builderRoot, dockerfile.stage("builder").workdir(), "."));
        for (String layer : declared)
            assertThat(extracted.resolve(layer)).as("layer " + layer).isDirectory();

        List<String> copied = dockerfile.last().copies().stream()
                .map(c -> Path.of(c.source()).getFileName().toString())
                .toList();
        assertThat(copied).as("every layer copied, once, least changing first").containsExactlyElementsOf(declared);
        assertThat(dockerfile.last().copies())
                .allSatisfy(c -> assertThat(Path.of(c.source()).getParent())
                        .isEqualTo(Path.of("/").resolve(builderRoot.relativize(extracted))));
    }

    @Test
    void theImageRunsAsANonRootUserWithContainerAwareMemoryOnPort8080() {
        Dockerfile.Stage image = dockerfile.last();
        assertThat(image.image()).startsWith("eclipse-temurin:17-jre");
        assertThat(image.user())
                .as("numeric uid:gid so runAsNonRoot can verify it")
                .matches("[1-9][0-9]*:[1-9][0-9]*");
        assertThat(image.env().get("JAVA_TOOL_OPTIONS"))
                .contains("-XX:MaxRAMPercentage=")
                .contains("-XX:+ExitOnOutOfMemoryError");
        assertThat(image.exposed()).containsExactly("8080");
    }

    @Test
    void theCopiedLayoutStartsWithTheEntrypointAndServesARequest() throws Exception {
        Dockerfile.Stage image = dockerfile.last();
        List<String> entrypoint = image.entrypoint();
        assertThat(entrypoint).hasSize(2).first().isEqualTo("java");
        Path app = resolve(imageRoot, image.workdir(), ".");
        assertThat(app.resolve(entrypoint.get(1).replace('.', '/') + ".class"))
                .as("the ENTRYPOINT's launcher")
                .isRegularFile();

        int port = freePort();
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        // The image's own JVM options come from JAVA_TOOL_OPTIONS below; these only keep the test small and quick.
        command.addAll(List.of("-Xms64m", "-Xmx512m", "-XX:TieredStopAtLevel=1"));
        command.addAll(entrypoint.subList(1, entrypoint.size()));
        // Demo tenants are off by default in front of a real provider; this test calls with the free demo key.
        command.addAll(List.of(
                "--server.port=" + port, "--sluice.provider.url=" + UPSTREAM.baseUrl(), "--sluice.demo.tenants=true"));
        Path log = work.resolve("gateway.log");
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(app.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().putAll(image.env());
        pb.environment().keySet().removeIf(k -> k.startsWith("SLUICE_") || k.startsWith("SPRING_"));
        Process gateway = pb.start();
        try {
            HttpClient http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(2))
                    .build();
            URI readiness = URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness");
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            HttpResponse<String> ready = null;
            while (System.nanoTime() < deadline && gateway.isAlive()) {
                try {
                    ready = http.send(HttpRequest.newBuilder(readiness).build(), HttpResponse.BodyHandlers.ofString());
                    if (ready.statusCode() == 200) break;
                } catch (ConnectException notYet) {
                    // still starting
                }
                Thread.sleep(250);
            }
            if (ready == null || ready.statusCode() != 200) fail("the gateway did not become ready:%n%s", tail(log));
            assertThat(Files.readString(log))
                    .contains("Picked up JAVA_TOOL_OPTIONS: " + image.env().get("JAVA_TOOL_OPTIONS"));

            HttpResponse<String> chat = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                            .header("Authorization", "Bearer sk-sluice-demo-free")
                            .header("Content-Type", "application/json")
                            .POST(
                                    HttpRequest.BodyPublishers.ofString(
                                            "{\"model\":\"gpt-4o-mini\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                            .timeout(Duration.ofSeconds(20))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(chat.statusCode()).as(chat.body()).isEqualTo(200);
            assertThat(chat.headers().firstValue("X-Sluice-Tier"))
                    .as("the tiers.yaml embedded in the jar")
                    .hasValue("free");
        } finally {
            gateway.destroy(); // SIGTERM, as the kubelet sends it
            if (!gateway.waitFor(30, TimeUnit.SECONDS)) gateway.destroyForcibly();
        }
    }

    static List<String> listLayers() throws Exception {
        Process p = new ProcessBuilder(javaExecutable(), "-Djarmode=tools", "-jar", jar.toString(), "list-layers")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }

    /** The one file of the build context (the repository root) that a COPY source glob names. */
    static Path onlyMatch(String glob) throws IOException {
        PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + glob);
        Path dir = ROOT.resolve(glob).getParent();
        assertThat(dir).as("COPY %s: its directory", glob).isDirectory();
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> matches =
                    files.filter(f -> matcher.matches(ROOT.relativize(f))).toList();
            assertThat(matches).as("COPY %s must match exactly one file", glob).hasSize(1);
            return matches.get(0).toAbsolutePath().normalize();
        }
    }

    static Path resolve(Path root, String workdir, String path) {
        Path base = path.startsWith("/") ? root : root.resolve(workdir.substring(1));
        return base.resolve(path.startsWith("/") ? path.substring(1) : path).normalize();
    }

    /** COPY semantics: a directory's contents merge into the destination; a file lands at it (or in it, for a trailing slash). */
    static void copyInto(Path source, Path destination) throws IOException {
        if (Files.isRegularFile(source)) {
            Files.createDirectories(destination.getParent());
            Files.copy(source, destination, StandardCopyOption.REPLACE_EXISTING);
            return;
        }
        try (Stream<Path> tree = Files.walk(source)) {
            tree.forEach(p -> {
                Path target = destination.resolve(source.relativize(p).toString());
                try {
                    if (Files.isDirectory(p)) Files.createDirectories(target);
                    else Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    static Path onlyChildDirectory(Path dir) throws IOException {
        try (Stream<Path> children = Files.list(dir)) {
            List<Path> dirs = children.filter(Files::isDirectory).toList();
            assertThat(dirs).as("the extract's destination directory").hasSize(1);
            return dirs.get(0);
        }
    }

    static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static String tail(Path log) throws IOException {
        if (!Files.exists(log)) return "(no log)";
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }
}
