package dev.sluice.gateway.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * A real Redis Cluster of three masters (no replicas) on free loopback ports, started from the
 * test with the {@code redis-server} and {@code redis-cli} that {@link TestRedis} finds, and
 * stopped and deleted by {@link #close()}. Each node gets its own cluster bus port
 * ({@code --cluster-port}) so nothing assumes port + 10000 is free. Without the binaries the
 * test fails and says how to get them: CI installs them ({@code .ci/run}), so a cluster test
 * never silently skips.
 */
public final class TestRedisCluster implements AutoCloseable {
    private static final Duration READY = Duration.ofSeconds(20);

    private final Path dir;
    private final List<Process> processes = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private final Thread shutdownHook = new Thread(this::stopProcesses);

    private TestRedisCluster(Path dir) {
        this.dir = dir;
    }

    /** Starts three nodes, joins them into one cluster and waits until every node says {@code cluster_state:ok}. */
    public static TestRedisCluster start() {
        String server = TestRedis.findOnPath("redis-server");
        String cli = TestRedis.findOnPath("redis-cli");
        if (server == null || cli == null) {
            throw new IllegalStateException(
                    "The Redis Cluster test needs redis-server and redis-cli (apt-get install -y "
                            + "redis-server, which brings redis-tools); found redis-server=" + server + ", redis-cli="
                            + cli);
        }
        TestRedisCluster cluster;
        try {
            cluster = new TestRedisCluster(Files.createTempDirectory("sluice-test-redis-cluster"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        try {
            cluster.startNodes(server, 3);
            cluster.create(cli);
            cluster.awaitStateOk();
            return cluster;
        } catch (RuntimeException | IOException e) {
            cluster.close();
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }

    private void startNodes(String server, int count) throws IOException {
        for (int i = 0; i < count; i++) {
            int port = TestRedis.freePort();
            int busPort = TestRedis.freePort();
            Path nodeDir = Files.createDirectories(dir.resolve("node-" + i));
            Process p = new ProcessBuilder(
                            server,
                            "--port",
                            Integer.toString(port),
                            "--cluster-port",
                            Integer.toString(busPort),
                            "--bind",
                            "127.0.0.1",
                            "--cluster-enabled",
                            "yes",
                            "--cluster-config-file",
                            nodeDir.resolve("nodes.conf").toString(),
                            "--cluster-node-timeout",
                            "5000",
                            "--save",
                            "",
                            "--appendonly",
                            "no",
                            "--dir",
                            nodeDir.toString(),
                            "--protected-mode",
                            "no")
                    .redirectErrorStream(true)
                    .redirectOutput(nodeDir.resolve("redis.log").toFile())
                    .start();
            processes.add(p);
            ports.add(port);
            TestRedis.awaitPing(port, p, nodeDir);
        }
    }

    private void create(String cli) throws IOException {
        List<String> command = new ArrayList<>(List.of(cli, "--cluster", "create"));
        ports.forEach(p -> command.add("127.0.0.1:" + p));
        command.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        Path log = dir.resolve("create.log");
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            if (!p.waitFor(READY.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("redis-cli --cluster create did not finish: " + Files.readString(log));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (p.exitValue() != 0)
            throw new IllegalStateException("redis-cli --cluster create failed: " + Files.readString(log));
    }

    /** Polls CLUSTER INFO: slot coverage spreads by gossip, an external process with no event to wait on. */
    private void awaitStateOk() {
        Instant deadline = Instant.now().plus(READY);
        while (Instant.now().isBefore(deadline)) {
            if (ports.stream().allMatch(p -> info(p).contains("cluster_state:ok"))) return;
            LockSupport.parkNanos(50_000_000L);
        }
        throw new IllegalStateException("cluster not ok within " + READY + ": "
                + ports.stream()
                        .map(p -> p + " " + info(p).lines().findFirst().orElse(""))
                        .collect(Collectors.joining("; ")));
    }

    /** The reply to {@code CLUSTER INFO} on one node, or "" if it does not answer yet. */
    public static String info(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            out.write("CLUSTER INFO\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder header = new StringBuilder();
            int c;
            while ((c = in.read()) != -1 && c != '\n') header.append((char) c);
            if (header.isEmpty() || header.charAt(0) != '$') return "";
            int length = Integer.parseInt(header.toString().trim().substring(1));
            byte[] body = in.readNBytes(length);
            return new String(body, StandardCharsets.US_ASCII);
        } catch (IOException | NumberFormatException e) {
            return "";
        }
    }

    public List<Integer> ports() {
        return List.copyOf(ports);
    }

    /** {@code 127.0.0.1:p1,127.0.0.1:p2,...}: the value for {@code spring.data.redis.cluster.nodes}. */
    public String nodes() {
        return ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    private void stopProcesses() {
        for (Process p : processes) p.destroy(); // all at once, then wait for each
        processes.forEach(TestRedis::stop);
    }

    /** Stops the nodes and deletes their files. */
    @Override
    public void close() {
        stopProcesses();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
        TestRedis.deleteTree(dir);
    }
}
