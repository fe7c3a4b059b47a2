package dev.sluice.gateway.testsupport;

import com.redis.testcontainers.RedisContainer;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.utility.DockerImageName;

/**
 * A real Redis for any test, one per JVM, found in this order:
 * <ol>
 *   <li>{@code SLUICE_TEST_REDIS_URL} (e.g. {@code redis://127.0.0.1:6379}): one you run;</li>
 *   <li>Testcontainers, where a Docker engine answers;</li>
 *   <li>a {@code redis-server} from the PATH, started on a free loopback port with no
 *       persistence and stopped when the JVM exits.</li>
 * </ol>
 * None of them: the test fails and says how to get one. Tests share the server, so each
 * uses its own key prefix or database-wide names it owns.
 */
public final class TestRedis {
    private static volatile String url;

    private TestRedis() {}

    /** {@code redis://host:port} of the shared test Redis, starting it on first use. */
    public static synchronized String url() {
        if (url == null) url = start();
        return url;
    }

    /** {@code redis://host:port/database}: a database of its own on the shared server, for a test that flushes it. */
    public static String url(int database) {
        URI u = URI.create(url());
        try {
            return new URI(u.getScheme(), u.getUserInfo(), u.getHost(), u.getPort(), "/" + database, null, null)
                    .toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Points a test's application context at the shared test Redis ({@code spring.data.redis.url}),
     * before any bean is made; {@link RedisGatewayTest} uses it. One class for every such test, so
     * tests that agree on everything else still share one cached context.
     */
    public static final class Initializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {
        /** A test property naming a database of the test's own (its own tiers document): database 0 otherwise. */
        public static final String DATABASE = "sluice.test.redis-database";

        @Override
        public void initialize(ConfigurableApplicationContext context) {
            String database = context.getEnvironment().getProperty(DATABASE);
            String redis = database == null ? url() : url(Integer.parseInt(database));
            context.getEnvironment()
                    .getPropertySources()
                    .addFirst(new MapPropertySource("testRedis", Map.of("spring.data.redis.url", redis)));
        }
    }

    public static String host() {
        return URI.create(url()).getHost();
    }

    public static int port() {
        return URI.create(url()).getPort();
    }

    private static String start() {
        String fromEnv = System.getenv("SLUICE_TEST_REDIS_URL");
        if (fromEnv != null && !fromEnv.isBlank()) return fromEnv.trim();
        if (dockerAvailable()) {
            RedisContainer container = new RedisContainer(DockerImageName.parse("redis:7.2-alpine"));
            container.start();
            Runtime.getRuntime().addShutdownHook(new Thread(container::stop));
            return container.getRedisURI();
        }
        return startLocalServer();
    }

    private static boolean dockerAvailable() {
        // Probe only where a Docker engine could be: the probe itself logs errors otherwise.
        if (System.getenv("DOCKER_HOST") == null && !Files.exists(Path.of("/var/run/docker.sock"))) return false;
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable t) {
            return false;
        }
    }

    private static String startLocalServer() {
        String binary = findOnPath("redis-server");
        if (binary == null) {
            throw new IllegalStateException("Tests need a real Redis: install redis-server (apt-get install -y "
                    + "redis-server), run Docker, or set SLUICE_TEST_REDIS_URL=redis://host:port");
        }
        int port = freePort();
        try {
            Path dir = Files.createTempDirectory("sluice-test-redis");
            Process process = new ProcessBuilder(
                            binary,
                            "--port",
                            Integer.toString(port),
                            "--bind",
                            "127.0.0.1",
                            "--save",
                            "",
                            "--appendonly",
                            "no",
                            "--dir",
                            dir.toString(),
                            "--protected-mode",
                            "no")
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile())
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stop(process);
                deleteTree(dir);
            }));
            awaitPing(port, process, dir);
            return "redis://127.0.0.1:" + port;
        } catch (IOException e) {
            throw new IllegalStateException("could not start redis-server", e);
        }
    }

    /** Stops a server and waits for it to be gone, so its directory can go too. */
    static void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Deletes a server's temporary directory: a run leaves nothing behind in /tmp. */
    static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is not worth failing a test over
        }
    }

    /** Polls PING: the process is external, so readiness has no event to wait on. */
    static void awaitPing(int port, Process process, Path dir) throws IOException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited: " + Files.readString(dir.resolve("redis.log")));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                OutputStream out = s.getOutputStream();
                out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = s.getInputStream();
                byte[] buf = new byte[7];
                int n = in.read(buf);
                if (n > 0 && new String(buf, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG")) return;
            } catch (IOException notYet) {
                // still starting
            }
            LockSupport.parkNanos(50_000_000L);
        }
        throw new IllegalStateException("redis-server did not answer PING on port " + port + " within 10 s");
    }

    /** An executable from the PATH or the usual system directories, or null. */
    static String findOnPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) return p.toString();
        }
        for (String dir : new String[] {"/usr/bin", "/usr/sbin", "/usr/local/bin"}) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) return p.toString();
        }
        return null;
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
