package dev.sluice.gateway.dispatch.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * A call whose lease was granted goes on from a provider loop ({@link UpstreamLoops}), not from
 * the loop its request arrived on, where it would wait behind the arrivals queued there: the
 * stages after dispatch run on a {@code sluice-upstream} thread, and so does the provider's
 * connection.
 */
@GatewayTest(properties = "sluice.demo.tenants=true")
@Import(UpstreamLoopsGatewayTest.AfterDispatch.class)
class UpstreamLoopsGatewayTest {
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering(FakeUpstream.CHAT_ANSWER);

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    /** The threads the first stage after dispatch ran on, one per call. */
    static final List<String> THREADS = new CopyOnWriteArrayList<>();

    @TestConfiguration
    static class AfterDispatch {
        @Bean
        GlobalFilter afterDispatchThread() {
            return new Watch();
        }
    }

    /** Between dispatch and the provider connection: where the granted call goes on. */
    static final class Watch implements GlobalFilter, Ordered {
        @Override
        public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
            THREADS.add(Thread.currentThread().getName());
            return chain.filter(exchange);
        }

        @Override
        public int getOrder() {
            return FilterOrder.DISPATCH + 1;
        }
    }

    @Autowired
    WebTestClient client;

    @Test
    void aGrantedCallGoesOnFromAProviderLoop() {
        for (int i = 0; i < 3; i++) {
            client.post()
                    .uri("/v1/chat/completions")
                    .header("Authorization", "Bearer sk-sluice-demo-pro")
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                    .exchange()
                    .expectStatus()
                    .isOk();
        }
        assertThat(THREADS).hasSize(3).allSatisfy(name -> assertThat(name).startsWith("sluice-upstream"));
    }
}
