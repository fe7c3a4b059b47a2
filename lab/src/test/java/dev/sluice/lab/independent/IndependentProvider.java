package dev.sluice.lab.independent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The independent provider ({@code lab/independent-provider/provider.mjs}) as a child process:
 * Node runs it on an ephemeral port, which it prints first on its stdout. Its counting is its own
 * (characters / N × a factor), so the gateway is measured against a count it does not share;
 * nothing here reaches into its logic, only its HTTP face ({@code /v1/**}, {@code /stats},
 * {@code /reset}).
 */
public final class IndependentProvider implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private final Process process;
    private final int port;

    private IndependentProvider(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Whether a {@code node} of version 18 or later is on the PATH (the script needs no packages). */
    public static boolean nodeAvailable() {
        try {
            Process p = new ProcessBuilder("node", "--version")
                    .redirectErrorStream(true)
                    .start();
            String version = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) return false;
            return version.matches("v\\d+\\..*") && Integer.parseInt(version.substring(1, version.indexOf('.'))) >= 18;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The script, from the lab module (where surefire runs) or from the repository's root. */
    public static Path script() {
        for (Path p : List.of(
                Path.of("independent-provider/provider.mjs"), Path.of("lab/independent-provider/provider.mjs"))) {
            if (Files.isRegularFile(p)) return p.toAbsolutePath();
        }
        throw new IllegalStateException("lab/independent-provider/provider.mjs not found from "
                + Path.of("").toAbsolutePath());
    }

    /** Starts it on a free port with {@code flags} ({@code --tpm=300000}, ...); its stderr goes to ours. */
    public static IndependentProvider start(String... flags) {
        return startOn(0, flags);
    }

    /**
     * Starts it on {@code port} (0: a free one) with {@code flags}: a provider that was {@link #kill() killed}
     * comes back where its clients (the gateway's tiers file) expect it.
     */
    public static IndependentProvider startOn(int port, String... flags) {
        // Its stdin stays open to us: if this JVM is killed rather than closed, the pipe closes and the provider exits.
        List<String> command =
                new ArrayList<>(List.of("node", script().toString(), "--port=" + port, "--exit-with-stdin=1"));
        command.addAll(List.of(flags));
        Process process;
        try {
            process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        try {
            String line = CompletableFuture.supplyAsync(() -> {
                        try {
                            return out.readLine();
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .get(15, TimeUnit.SECONDS);
            if (line == null || !line.trim().matches("\\d+")) {
                throw new IllegalStateException("the provider did not print its port: " + line + " (" + command + ")");
            }
            return new IndependentProvider(process, Integer.parseInt(line.trim()));
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            process.destroyForcibly();
            throw new IllegalStateException("the provider did not start: " + command, e);
        }
    }

    public int port() {
        return port;
    }

    /** The OpenAI base URL a client (or the gateway's {@code sluice.provider.url}) is given. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port + "/v1";
    }

    /** {@code GET /stats}: its counters, the busiest minute and the per-second series. */
    public JsonNode stats() {
        return JsonMapper.shared()
                .readTree(call(HttpRequest.newBuilder(uri("/stats")).GET().build())
                        .body());
    }

    /** {@code POST /reset}: an empty window and zeroed counters, from now on. */
    public void reset() {
        HttpResponse<String> r = call(HttpRequest.newBuilder(uri("/reset"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
        if (r.statusCode() != 200) throw new IllegalStateException("POST /reset: " + r.statusCode() + " " + r.body());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static HttpResponse<String> call(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * SIGKILL, as a crash or an OOM kill would: no goodbye to its clients, whose connections the OS resets.
     * Returns once the process is gone, so its port can be bound again.
     */
    public void kill() {
        try {
            if (!process.destroyForcibly().waitFor(10, TimeUnit.SECONDS))
                throw new IllegalStateException("the provider outlived SIGKILL");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        process.destroy(); // SIGTERM: it closes its connections and exits
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
