package dev.sluice.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A process the benchmark starts (an arm, the fake provider, redis-server): its output goes to a
 * log file, its CPU time can be read at any moment, and it is stopped when the benchmark ends,
 * however it ends.
 */
final class ChildProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path log;

    private ChildProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Starts {@code command}, optionally pinned to {@code cpus} with taskset (null: anywhere). */
    static ChildProcess start(String name, List<String> command, Path logDir, String cpus) throws IOException {
        List<String> full = new ArrayList<>();
        if (cpus != null) full.addAll(List.of("taskset", "-c", cpus));
        full.addAll(command);
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        Files.writeString(log, String.join(" ", full) + "\n\n");
        Process p = new ProcessBuilder(full)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        ChildProcess child = new ChildProcess(name, p, log);
        Runtime.getRuntime().addShutdownHook(new Thread(child::close));
        return child;
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    /** CPU time the process has used so far (user + system, all threads), in nanoseconds. */
    long cpuNanos() {
        return process.toHandle()
                .info()
                .totalCpuDuration()
                .map(Duration::toNanos)
                .orElse(-1L);
    }

    /**
     * CPU time of the JIT compiler threads so far, in nanoseconds (Linux: from /proc; -1
     * elsewhere). A JVM still compiling is not warm, and what it spends compiling is not the
     * cost of a request.
     */
    long jitCpuNanos() {
        Path tasks = Path.of("/proc", Long.toString(process.pid()), "task");
        long ticks = 0;
        try (var dirs = Files.list(tasks)) {
            for (Path task : (Iterable<Path>) dirs::iterator) {
                try {
                    if (!Files.readString(task.resolve("comm")).contains("CompilerThre")) continue; // C1 and C2 threads
                    String stat = Files.readString(task.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
                } catch (IOException | RuntimeException threadGone) {
                    // the thread ended between listing and reading
                }
            }
        } catch (IOException notLinux) {
            return -1;
        }
        return ticks * 10_000_000L; // USER_HZ is 100 on Linux
    }

    /** Waits until a TCP connection to {@code port} succeeds (the process is external: there is no event to wait on). */
    void awaitPort(int port, Duration limit) throws IOException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) throw new IllegalStateException(name + " exited: see " + log);
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
        throw new IllegalStateException(
                name + " did not listen on " + port + " within " + limit.toSeconds() + " s: see " + log);
    }

    void checkAlive() {
        if (!process.isAlive()) throw new IllegalStateException(name + " exited: see " + log);
    }

    @Override
    public void close() {
        if (!process.isAlive()) return;
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
