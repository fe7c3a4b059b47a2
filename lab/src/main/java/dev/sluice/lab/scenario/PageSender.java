package dev.sluice.lab.scenario;

import io.netty.handler.codec.http.HttpMethod;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * How a case sends one page, over real HTTP. The answer is final: a sender that retries (the
 * gateway's client after a busy answer) does so inside. Refusals on our side are told to the
 * recorder here; the provider's own are told by the provider (see {@link CaseRecorder#decided}).
 */
public interface PageSender extends AutoCloseable {

    /** The tokens the provider billed for the page, or {@link #FAILED}. */
    Mono<Long> send(int user, String body);

    long FAILED = -1;

    @Override
    void close();

    /** One HTTP reply, read whole. */
    record Reply(int status, String body, String retryAfterMs) {
        long billedTokens() {
            return JsonMapper.shared()
                    .readTree(body)
                    .path("usage")
                    .path("total_tokens")
                    .asLong(0);
        }

        JsonNode error() {
            try {
                return JsonMapper.shared().readTree(body).path("error");
            } catch (RuntimeException e) {
                return JsonMapper.shared().missingNode();
            }
        }
    }

    /** An HTTP client on its own pool, and the calls every sender makes with it. */
    final class Http implements AutoCloseable {
        private final ConnectionProvider pool;
        private final HttpClient client;
        private final String baseUrl;

        /** A pool that never makes a page wait: as many connections as {@code connections}, and no acquire timeout worth the name. */
        static Http unbounded(String name, String baseUrl, int connections) {
            return new Http(
                    ConnectionProvider.builder(name)
                            .maxConnections(connections)
                            .pendingAcquireMaxCount(-1)
                            .pendingAcquireTimeout(Duration.ofMinutes(10))
                            .maxIdleTime(Duration.ofMinutes(5))
                            .build(),
                    baseUrl);
        }

        /** Exactly {@code connections}; pages beyond them wait in the pool's queue, up to {@code acquireTimeout} (wall time). */
        static Http fixed(String name, String baseUrl, int connections, Duration acquireTimeout) {
            return new Http(
                    ConnectionProvider.builder(name)
                            .maxConnections(connections)
                            .pendingAcquireMaxCount(-1)
                            .pendingAcquireTimeout(acquireTimeout)
                            .maxIdleTime(Duration.ofMinutes(5))
                            .build(),
                    baseUrl);
        }

        Http(ConnectionProvider pool, String baseUrl) {
            this.pool = pool;
            this.baseUrl = baseUrl;
            this.client = HttpClient.create(pool).responseTimeout(Duration.ofMinutes(10));
        }

        Mono<Reply> post(String path, String body, String... headers) {
            return client.headers(h -> {
                        h.set("content-type", "application/json");
                        for (int i = 0; i + 1 < headers.length; i += 2) h.set(headers[i], headers[i + 1]);
                    })
                    .request(HttpMethod.POST)
                    .uri(baseUrl + path)
                    .send(ByteBufFlux.fromString(Mono.just(body)))
                    .responseSingle((res, b) -> b.asString()
                            .defaultIfEmpty("")
                            .map(text -> new Reply(
                                    res.status().code(),
                                    text,
                                    res.responseHeaders().get("retry-after-ms"))));
        }

        /**
         * Opens {@code n} connections with a GET that costs the provider nothing: a production
         * client's pool is warm, and opening hundreds cold would spread a burst over more than a call.
         */
        void warm(String path, int n) {
            if (n < 1) return;
            Flux.range(0, n)
                    .flatMap(
                            i -> client.get()
                                    .uri(baseUrl + path)
                                    .responseSingle((r, b) ->
                                            b.then(Mono.just(r.status().code()))),
                            n)
                    .blockLast(Duration.ofSeconds(60));
        }

        @Override
        public void close() {
            pool.disposeLater().block(Duration.ofSeconds(10));
        }
    }

    /** Straight to the provider (cases 1, 2 and, behind its limiter, 3): 200 is billed, anything else died. */
    static PageSender direct(Http http, CaseRecorder recorder, Clock clock) {
        return new PageSender() {
            @Override
            public Mono<Long> send(int user, String body) {
                return http.post("/v1/chat/completions", body, "authorization", "Bearer sk-lab-user-" + user)
                        .map(reply -> providerAnswer(reply, recorder, clock));
            }

            @Override
            public void close() {
                // the rig owns the client's pool
            }
        };
    }

    /** Case 3: a page takes a token from its user's bucket and the global one, or we refuse it ourselves. */
    static PageSender limited(PageSender behind, PageLimiter limiter, CaseRecorder recorder, Clock clock) {
        return new PageSender() {
            @Override
            public Mono<Long> send(int user, String body) {
                return Mono.defer(() -> {
                    long now = clock.millis();
                    if (limiter.tryAcquire(user, now)) return behind.send(user, body);
                    recorder.refused(now, FailureLimit.LIMITER);
                    return Mono.just(FAILED);
                });
            }

            @Override
            public void close() {
                behind.close();
            }
        };
    }

    /**
     * Case 5: a client whose pool holds a fixed number of connections; pages beyond them wait for
     * one in the pool's own queue, with no fairness, no budget and no door, until its acquire
     * timeout. Nothing else is in front of the provider.
     */
    static PageSender pooled(Http fixedPool, CaseRecorder recorder, Clock clock) {
        Http http = fixedPool;
        return new PageSender() {
            @Override
            public Mono<Long> send(int user, String body) {
                return http.post("/v1/chat/completions", body, "authorization", "Bearer sk-lab-user-" + user)
                        .map(reply -> providerAnswer(reply, recorder, clock))
                        // The pool's acquire timeout (reactor-pool's PoolAcquireTimeoutException is one).
                        .onErrorResume(TimeoutException.class, e -> {
                            recorder.refused(clock.millis(), FailureLimit.TIMEOUT);
                            return Mono.just(FAILED);
                        });
            }

            @Override
            public void close() {
                // the rig owns the client's pool
            }
        };
    }

    /**
     * Case 4: through a Sluice gateway, each user with its own tenant key. A busy answer
     * (503 {@code gateway_busy}) is what the door says instead of letting the page hurt the
     * provider; the client does as told and asks again after its Retry-After, so the book still
     * arrives whole, later. Any other refusal breaks the page.
     */
    static PageSender throughGateway(Http http, IntFunction<String> keyOf, CaseRecorder recorder, ScaledClock clock) {
        return new PageSender() {
            @Override
            public Mono<Long> send(int user, String body) {
                return http.post("/v1/chat/completions", body, "authorization", "Bearer " + keyOf.apply(user))
                        .flatMap(reply -> {
                            if (reply.status() == 200) return Mono.just(reply.billedTokens());
                            long now = clock.millis();
                            if (reply.status() == 503
                                    && "gateway_busy"
                                            .equals(reply.error().path("code").asString(""))) {
                                recorder.refused(now, FailureLimit.GATEWAY_BUSY);
                                long retryMs = parseOr(reply.retryAfterMs(), 1_000);
                                // At least a tenth of a seed second between tries: a client, not a loop.
                                return Mono.delay(clock.realMillis(Math.max(100, retryMs)))
                                        .then(send(user, body));
                            }
                            recorder.unexpected(now);
                            return Mono.just(FAILED);
                        });
            }

            @Override
            public void close() {
                // the rig owns the client: it lives as long as its gateway
            }
        };
    }

    private static long parseOr(String v, long otherwise) {
        try {
            return v == null ? otherwise : Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    /** A provider's reply: its refusals are already on record (the provider told the recorder). */
    private static long providerAnswer(Reply reply, CaseRecorder recorder, Clock clock) {
        if (reply.status() == 200) return reply.billedTokens();
        if (reply.status() != 429 && reply.status() != 503) recorder.unexpected(clock.millis());
        return FAILED;
    }
}
