package dev.sluice.gateway.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The extension's lifecycle, driven by hand: the callbacks read nothing of their context. */
class FakeUpstreamExtensionTest {

    static String get(String url) throws IOException, InterruptedException {
        // A client per call: a pooled connection would hide a stopped server.
        return HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }

    @Test
    void answersUntilTheClassEndsAndIsNotStartedAgainAfter() throws Exception {
        FakeUpstreamExtension upstream = FakeUpstreamExtension.answering("{\"ok\":true}");
        upstream.beforeAll(null);
        String url = upstream.baseUrl();
        assertThat(get(url + "/models")).isEqualTo("{\"ok\":true}");
        assertThat(upstream.requests()).extracting(FakeUpstream.Recorded::path).containsExactly("/openai/v1/models");

        upstream.afterAll(null);
        assertThatThrownBy(() -> get(url + "/models")).isInstanceOf(IOException.class);
        assertThat(upstream.baseUrl())
                .as("a cached context reading the URL again")
                .isEqualTo(url);
    }

    @Test
    void keepsWhatItRecordedBetweenTestsUnlessToldToForget() throws Exception {
        FakeUpstreamExtension keeping = FakeUpstreamExtension.answering("{}");
        FakeUpstreamExtension forgetting = FakeUpstreamExtension.answering("{}").clearedBeforeEachTest();
        try {
            get(keeping.baseUrl() + "/models");
            get(forgetting.baseUrl() + "/models");
            keeping.beforeEach(null);
            forgetting.beforeEach(null);
            assertThat(keeping.requests()).hasSize(1);
            assertThat(forgetting.requests()).isEmpty();
        } finally {
            keeping.afterAll(null);
            forgetting.afterAll(null);
        }
    }
}
