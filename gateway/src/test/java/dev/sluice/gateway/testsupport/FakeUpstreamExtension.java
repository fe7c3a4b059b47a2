package dev.sluice.gateway.testsupport;

import java.util.concurrent.BlockingQueue;
import java.util.function.BiFunction;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.reactivestreams.Publisher;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A {@link FakeUpstream} for one test class, on a static {@code @RegisterExtension} field:
 * <pre>
 * &#64;RegisterExtension
 * static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering(FakeUpstream.CHAT_ANSWER);
 *
 * &#64;DynamicPropertySource
 * static void upstream(DynamicPropertyRegistry registry) {
 *     registry.add("sluice.provider.url", UPSTREAM::baseUrl);
 * }
 * </pre>
 * It starts before the class's tests, or earlier when first asked for (Spring may read a
 * {@code @DynamicPropertySource} before this extension's turn), and stops after the class's own
 * {@code @AfterAll} methods, so a gateway they close never loses its upstream first.
 */
public final class FakeUpstreamExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {
    private final BiFunction<FakeUpstream.Recorded, HttpServerResponse, Publisher<Void>> handler;
    private final boolean clearedBeforeEachTest;
    /** Started on first use; kept once stopped, so a cached context that reads the URL again gets the same one. */
    private FakeUpstream server;

    private FakeUpstreamExtension(
            BiFunction<FakeUpstream.Recorded, HttpServerResponse, Publisher<Void>> handler,
            boolean clearedBeforeEachTest) {
        this.handler = handler;
        this.clearedBeforeEachTest = clearedBeforeEachTest;
    }

    /** An upstream answering as {@link FakeUpstream#start} does. */
    public static FakeUpstreamExtension start(
            BiFunction<FakeUpstream.Recorded, HttpServerResponse, Publisher<Void>> handler) {
        return new FakeUpstreamExtension(handler, false);
    }

    /** An upstream answering as {@link FakeUpstream#answering} does. */
    public static FakeUpstreamExtension answering(String json) {
        return start(FakeUpstream.answerWith(json));
    }

    /** The same upstream, whose recorded requests are forgotten before each test: for tests that read only their own. */
    public FakeUpstreamExtension clearedBeforeEachTest() {
        return new FakeUpstreamExtension(handler, true);
    }

    public synchronized FakeUpstream server() {
        if (server == null) server = FakeUpstream.start(handler);
        return server;
    }

    public String baseUrl() {
        return server().baseUrl();
    }

    public BlockingQueue<FakeUpstream.Recorded> requests() {
        return server().requests();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (clearedBeforeEachTest) requests().clear();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        server().close();
    }
}
