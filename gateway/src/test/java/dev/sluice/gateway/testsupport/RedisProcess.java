package dev.sluice.gateway.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A redis-server this test owns, for fault injection: unlike {@link TestRedis}'s shared one it
 * can be paused (SIGSTOP, as a stalled or swapped-out Redis), resumed, killed and started
 * again empty on the same port, or started late. No persistence: a restart is a wipe.
 */
public final class RedisProcess implements AutoCloseable {
    private final int port;
    private final Path dir;
    private Process process;

    private RedisProcess(int port) throws IOException {
        this.port = port;
        this.dir = Files.createTempDirectory("sluice-fault-redis");
    }

    /** A port reserved for a server not started yet ({@link #start()} it later). */
    public static RedisProcess notStarted() {
        try {
            return new RedisProcess(freePort());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static RedisProcess started() {
        RedisProcess r = notStarted();
        r.start();
        return r;
    }

    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    /** Starts an empty server on this port and waits for PING. */
    public synchronized RedisProcess start() {
        if (process != null && process.isAlive()) throw new IllegalStateException("already running");
        try {
            process = new ProcessBuilder(
                            binary(),
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
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(
                            dir.resolve("redis.log").toFile()))
                    .start();
            awaitPing();
            return this;
        } catch (IOException e) {
            throw new IllegalStateException("could not start redis-server", e);
        }
    }

    /** SIGSTOP: the server keeps its connections and answers nothing, as a hung Redis does. */
    public void pause() {
        signal("STOP");
    }

    public void resume() {
        signal("CONT");
    }

    /** SIGKILL, and waits for the process to be gone: everything in it is lost. */
    public synchronized void kill() {
        if (process == null) return;
        signal("CONT"); // a stopped process dies on SIGKILL too, but leave nothing half-stopped
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills the server and deletes its directory. */
    @Override
    public void close() {
        kill();
        TestRedis.deleteTree(dir);
    }

    private void signal(String sig) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(pid()))
                    .inheritIO()
                    .start();
            if (kill.waitFor() != 0) throw new IllegalStateException("kill -" + sig + " " + pid() + " failed");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void awaitPing() throws IOException {
        TestRedis.awaitPing(port, process, dir);
    }

    private static String binary() {
        String found = TestRedis.findOnPath("redis-server");
        if (found == null)
            throw new IllegalStateException(
                    "Fault-injection tests need redis-server on the PATH (apt-get install -y redis-server)");
        return found;
    }

    private static int freePort() {
        return TestRedis.freePort();
    }
}
